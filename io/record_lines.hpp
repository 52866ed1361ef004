// RecordLines: the 1-based line of a file on which each record of a table starts, for messages
// and output that point back into the file (io/csv_table.hpp, `ngvi fit`'s fitted.csv).
//
// In most files record r + 1 starts on the line after record r, so the lines are stored as runs:
// one (first record, its line) pair wherever a record does not start on the line after the
// previous one (after a blank line, or after a quoted field holding a line break). A table whose
// records follow each other costs one pair (16 bytes) whatever its length, instead of 8 bytes per
// record; a file with a blank line between every two records costs 16 bytes per record. The lines
// read like a container of std::size_t: size(), operator[], front(), back(), begin()/end(), ==.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <ranges>
#include <stdexcept>
#include <string>
#include <vector>

namespace ngvi::io {

class RecordLines {
  struct Run {
    std::size_t first_record;  // 0-based
    std::size_t first_line;    // the line it starts on; record first_record + k: first_line + k
  };

 public:
  using value_type = std::size_t;

  // Walks the records in order. Cost: O(1) per step.
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;  // it yields values, not references
    using value_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::size_t*;
    using reference = std::size_t;

    const_iterator() = default;
    std::size_t operator*() const {
      const Run& run = (*runs_)[run_];
      return run.first_line + (record_ - run.first_record);
    }
    const_iterator& operator++() {
      ++record_;
      if (run_ + 1 < runs_->size() && (*runs_)[run_ + 1].first_record == record_) ++run_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++*this;
      return before;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.record_ == b.record_;
    }

   private:
    friend class RecordLines;
    const_iterator(const std::vector<Run>* runs, std::size_t record)
        : runs_(runs), record_(record) {}
    const std::vector<Run>* runs_ = nullptr;
    std::size_t record_ = 0, run_ = 0;
  };

  // Appends the next record, starting on `line`. Cost: O(1) amortised.
  void push_back(std::size_t line) {
    if (runs_.empty() || line != back() + 1) runs_.push_back(Run{size_, line});
    ++size_;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The number of runs stored (the memory is 16 bytes per run).
  std::size_t runs() const { return runs_.size(); }

  // The line record `record` (0-based) starts on. Throws std::out_of_range for a record at or
  // beyond size(). Cost: O(log runs()).
  std::size_t operator[](std::size_t record) const {
    if (record >= size_)
      throw std::out_of_range("ngvi::io::RecordLines::operator[]: record " +
                              std::to_string(record) + " of " + std::to_string(size_));
    const auto after =
        std::upper_bound(runs_.begin(), runs_.end(), record,
                         [](std::size_t r, const Run& run) { return r < run.first_record; });
    const Run& run = *(after - 1);
    return run.first_line + (record - run.first_record);
  }
  // The first and the last record's line. Throw std::out_of_range when empty. Cost: O(1).
  std::size_t front() const { return (*this)[0]; }
  std::size_t back() const {
    if (empty()) throw std::out_of_range("ngvi::io::RecordLines::back: no records");
    return runs_.back().first_line + (size_ - 1 - runs_.back().first_record);
  }

  const_iterator begin() const { return const_iterator(&runs_, 0); }
  const_iterator end() const { return const_iterator(&runs_, size_); }

  // Whether the lines are those of `other` (say a std::vector of them), in order. Cost: O(size()).
  template <std::ranges::input_range Range>
  friend bool operator==(const RecordLines& lines, const Range& other) {
    return std::equal(lines.begin(), lines.end(), std::ranges::begin(other),
                      std::ranges::end(other));
  }

 private:
  std::vector<Run> runs_;
  std::size_t size_ = 0;
};

}  // namespace ngvi::io
