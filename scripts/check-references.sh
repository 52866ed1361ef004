#!/usr/bin/env bash
# Checks that the repository refers to nothing outside it and to nothing of its own that is gone
# (issue 23). CTest runs it as ngvi.references; run it directly with `bash
# scripts/check-references.sh`. It prints every offence as file:line: what, and exits 1 if there
# is any. Three checks, over the tracked files:
#   links     a relative Markdown link or image, [text](path) or ![alt](path), in a *.md file must
#             name an existing file or folder (relative to the .md file's folder; http(s):,
#             mailto: and other schemes and pure #anchors are not checked; a trailing #anchor is
#             dropped);
#   paths     a repository path, i.e. a word that starts with a top-level folder (autodiff/ nn/
#             inference/ app/ test/ examples/ bench/ scripts/ docs/ data/ cmake/ distributed/)
#             and ends in .hpp .cpp .md .sh .py .cmake .json .txt .csv .png .svg, named in a *.md
#             file (in `code`, a code block or the text) or in a comment (// in C++ files; # in
#             CMakeLists.txt, *.cmake, *.sh, *.py and .ci/) must exist — relative to the
#             repository root or to the naming file's folder. Paths with a wildcard or a
#             <placeholder> are not words of this form and are skipped, and so are build outputs
#             (build/...: not at the start of a word). A genuine exception goes in
#             scripts/check-references.allow (none today): one path a line, then # and the reason;
#   outside   no file names the design document or the source documents that are not in the
#             repository (DESIGN.md, a seed file "seed 00N" or seeds/), and no file names the
#             shared folder beside the repository (".." + "/shared") except the benchmark files, where the peer
#             harness's location is a documented setting: scripts/bench*.sh,
#             scripts/bench_vi_table.py, bench/CMakeLists.txt, bench/README.md, bench/*.cpp,
#             bench/reference/, bench/peers/.
# "Exists" means a tracked file, a folder holding one, or a file of the working tree that git does
# not ignore (so a new file counts before `git add`). Needs bash, git, grep, sed, awk.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

self=scripts/check-references.sh
allow_file=scripts/check-references.allow
tops='autodiff|nn|inference|app|test|examples|bench|scripts|docs|data|cmake|distributed'
exts='hpp|cpp|md|sh|py|cmake|json|txt|csv|png|svg'

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check-references: skipped: $(pwd) is not a git work tree (the check reads git ls-files)" >&2
  exit 77
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/ngvi-refs.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The tracked files and the folders that hold them.
git ls-files >"$work/files"
{
  cat "$work/files"
  sed -n 's|/[^/]*$||p' "$work/files" | awk -F/ '{ p = $1; print p; for (i = 2; i <= NF; ++i) { p = p "/" $i; print p } }'
} | sort -u >"$work/known"
declare -A known=()
while IFS= read -r p; do known["$p"]=1; done <"$work/known"

declare -A allowed=()
if [[ -f "$allow_file" ]]; then
  while IFS= read -r line; do
    line="${line%%#*}"
    line="${line//[[:space:]]/}"
    [[ -n "$line" ]] && allowed["$line"]=1
  done <"$allow_file"
fi

offences=0
offence() {
  echo "$1" >&2
  offences=$((offences + 1))
}

# True if repository-relative path $1 exists in the sense above.
exists() {
  local p="${1%/}"
  [[ -n "${known[$p]:-}" ]] && return 0
  [[ -e "$p" ]] && ! git check-ignore -q -- "$p" 2>/dev/null
}

# Normalises $2 taken relative to folder $1 ("" for the root) to a repository-relative path in
# $resolved ("." for the root itself); empty if it leaves the repository. Pure bash: a fork per
# reference (realpath, $(...)) made this check take 10 s.
resolve() {
  local base="$1" p="$2" seg
  local -a parts out=()
  resolved=""
  if [[ "$p" == /* ]]; then p="${p#/}"; elif [[ -n "$base" ]]; then p="$base/$p"; fi
  IFS=/ read -ra parts <<<"$p"
  for seg in "${parts[@]}"; do
    case "$seg" in
      "" | .) ;;
      ..) ((${#out[@]} > 0)) || return 0; unset 'out[-1]' ;;
      *) out+=("$seg") ;;
    esac
  done
  local IFS=/
  resolved="${out[*]}"
  [[ -n "$resolved" ]] || resolved=.
}

mapfile -t md_files < <(grep -E '\.md$' "$work/files" || true)
mapfile -t cpp_files < <(grep -E '\.(hpp|cpp|h)$' "$work/files" || true)
mapfile -t hash_files < <(grep -E '(^|/)CMakeLists\.txt$|\.(cmake|cmake\.in|sh|py)$|^\.ci/' "$work/files" || true)

# --- links and paths: one awk pass emits "kind<TAB>file<TAB>line<TAB>target" --------------------
# kind is link (a Markdown link target) or path (a repository path in code or a comment).
extract='
function scan(text, line,   pre, tok, after) {
  while (match(text, PATHRE)) {
    pre = RSTART > 1 ? substr(text, RSTART - 1, 1) : ""
    tok = substr(text, RSTART, RLENGTH)
    after = substr(text, RSTART + RLENGTH, 2)
    text = substr(text, RSTART + RLENGTH)
    if (pre ~ /[A-Za-z0-9_.\/$-]/) continue            # the tail of a longer path
    if (after ~ /^[A-Za-z0-9_*<]/ || after ~ /^\.[A-Za-z0-9]/) continue  # not its end
    print "path\t" FILENAME "\t" line "\t" tok
  }
}
FNR == 1 { fence = 0 }
{
  line = $0
  if (MODE == "md") {
    if (line ~ /^ ? ? ?(```|~~~)/) { fence = !fence; next }
    scan(line, FNR)                                      # paths: anywhere in the text
    if (fence) next
    gsub(/`[^`]*`/, "", line)                            # links: outside code
    while (match(line, /\]\([^)]*\)/)) {
      t = substr(line, RSTART + 2, RLENGTH - 3)
      line = substr(line, RSTART + RLENGTH)
      sub(/^[ \t]*</, "", t); sub(/>[ \t]*$/, "", t); sub(/[ \t].*$/, "", t)
      if (t != "") print "link\t" FILENAME "\t" FNR "\t" t
    }
    if (match(line, /^ ? ? ?\[[^]]+\]:[ \t]*[^ \t]+/)) {  # reference definitions
      t = line; sub(/^ ? ? ?\[[^]]+\]:[ \t]*/, "", t); sub(/[ \t].*$/, "", t)
      sub(/^</, "", t); sub(/>$/, "", t)
      print "link\t" FILENAME "\t" FNR "\t" t
    }
  } else if (MODE == "cpp") {
    rest = line; pos = 0
    while ((i = index(rest, "//")) > 0) {               # the first // that is not ://
      if (i == 1 || substr(rest, i - 1, 1) != ":") { pos = i; break }
      rest = substr(rest, i + 2)
    }
    if (pos > 0) scan(substr(rest, pos + 2), FNR)
  } else {
    if (line ~ /^#!/) next
    if (line ~ /^[ \t]*#/) scan(line, FNR)
    else if (match(line, /[ \t]#[ \t]/)) scan(substr(line, RSTART + 2), FNR)
  }
}'
path_re="(${tops})/[A-Za-z0-9_.+/-]*[.](${exts})"
{
  [[ ${#md_files[@]} -gt 0 ]] && awk -v MODE=md -v PATHRE="$path_re" "$extract" "${md_files[@]}"
  [[ ${#cpp_files[@]} -gt 0 ]] && awk -v MODE=cpp -v PATHRE="$path_re" "$extract" "${cpp_files[@]}"
  [[ ${#hash_files[@]} -gt 0 ]] && awk -v MODE=hash -v PATHRE="$path_re" "$extract" "${hash_files[@]}"
  true
} >"$work/refs"

while IFS=$'\t' read -r kind file line target; do
  dir=""
  [[ "$file" == */* ]] && dir="${file%/*}"
  if [[ "$kind" == link ]]; then
    # Other schemes (http:, https:, mailto:, ...) and pure anchors are not files.
    [[ "$target" =~ ^[A-Za-z][A-Za-z0-9+.-]*: || "$target" == \#* ]] && continue
    t="${target%%#*}"
    t="${t%%\?*}"
    [[ -z "$t" ]] && continue
    resolve "$dir" "$t"
    r="$resolved"
    if [[ -z "$r" ]]; then
      offence "$file:$line: link ($target) leaves the repository"
    elif ! exists "$r" && [[ -z "${allowed[$target]:-}" ]]; then
      offence "$file:$line: link ($target) names $r, which does not exist"
    fi
  else
    [[ -n "${allowed[$target]:-}" ]] && continue
    exists "$target" && continue
    resolve "$dir" "$target"
    [[ -n "$resolved" ]] && exists "$resolved" && continue
    offence "$file:$line: $target does not exist"
  fi
done <"$work/refs"

# --- outside: names of things that are not in the repository --------------------------------------
not_these=(":(exclude)$self" ":(exclude)$allow_file")
bench_files=(":(exclude,glob)scripts/bench*.sh" ":(exclude)scripts/bench_vi_table.py"
  ":(exclude)bench/CMakeLists.txt" ":(exclude)bench/README.md" ":(exclude,glob)bench/*.cpp"
  ":(exclude,glob)bench/reference/**" ":(exclude,glob)bench/peers/**")
report() {  # $1: what; stdin: git grep -n output
  while IFS= read -r hit; do
    offence "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): $1: $(cut -d: -f3- <<<"$hit" | sed 's/^[[:space:]]*//')"
  done
}
report "names DESIGN.md, which is not in the repository" < <(git grep -nI -F 'DESIGN.md' -- . "${not_these[@]}" || true)
report "names a source document (cite the paper instead)" < <(git grep -nI -i -E '(^|[^a-z])seeds? 00[0-9]([^0-9]|$)|seeds/' -- . "${not_these[@]}" || true)
shared_folder="../""shared"  # spelt in two pieces so that this script does not name it itself
report "names $shared_folder, outside the repository" < <(git grep -nI -F "$shared_folder" -- . "${not_these[@]}" "${bench_files[@]}" || true)

if [[ $offences -gt 0 ]]; then
  echo "check-references: $offences reference(s) to something outside the repository or missing" >&2
  exit 1
fi
echo "check-references: every link, path and name checked refers to something in the repository"
