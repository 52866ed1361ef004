# Browser test of report.html, run by CTest as
#   cmake -DNGVI_EXE=<ngvi> -DCHROMIUM=<chromium-headless-shell> -DWORK=<scratch dir>
#         -DARGS=<a^^b^^...> -P browser_check.cmake
# or, to check a report folder that another test wrote (the study's: a second `ngvi study
# --quick` took 15 s of the test run), with -DREPORT=<folder> instead of -DNGVI_EXE and -DARGS.
#
# Runs `ngvi ARGS... --out <WORK>/report` to make a report folder (or takes REPORT), then loads
# a copy of its report.html in headless Chromium with a checking script injected at the top of
# <head> (the copy's Content-Security-Policy gains script-src 'unsafe-inline' for that script and
# nothing else). After the page's load event the script writes one line into the DOM, which
# --dump-dom returns once the --virtual-time-budget has run out. The test passes when every
# <img> decoded (complete, naturalWidth > 0), no resource was fetched (Resource Timing lists
# none, and no Content-Security-Policy violation was reported, i.e. nothing even tried), and no
# error or console.error happened. --no-sandbox: Chromium's sandbox refuses to run as root
# (CI) and is irrelevant for a local file we just wrote.
cmake_minimum_required(VERSION 3.25)

set(_required CHROMIUM WORK)
if(NOT DEFINED REPORT)
  list(APPEND _required NGVI_EXE ARGS)
endif()
foreach(_v IN LISTS _required)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "browser_check.cmake: pass -D${_v}=...")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/report")
if(DEFINED REPORT)
  if(NOT EXISTS "${REPORT}/report.html")
    message(FATAL_ERROR "browser_check.cmake: ${REPORT}/report.html does not exist")
  endif()
  file(READ "${REPORT}/report.html" _html)
else()
  include("${CMAKE_CURRENT_LIST_DIR}/../run_ngvi.cmake")
  ngvi_run_out("${WORK}/report")
  file(READ "${WORK}/report/report.html" _html)
endif()
set(_csp "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
string(FIND "${_html}" "${_csp}" _at)
if(_at LESS 0)
  message(FATAL_ERROR "report.html lacks its Content-Security-Policy: ${_csp}")
endif()
string(REPLACE "${_csp}" "${_csp}; script-src 'unsafe-inline'" _html "${_html}")
set(_checker [=[
<script>
(function () {
  var problems = [];
  document.addEventListener('securitypolicyviolation', function (e) { problems.push('blocked fetch of ' + e.blockedURI); });
  window.addEventListener('error', function (e) { problems.push('error: ' + (e.message || (e.target && e.target.src && e.target.src.slice(0, 60)))); }, true);
  var consoleError = console.error;
  console.error = function () { problems.push('console.error: ' + Array.prototype.join.call(arguments, ' ')); consoleError.apply(console, arguments); };
  window.addEventListener('load', function () {
    var images = document.images, broken = 0;
    for (var i = 0; i < images.length; ++i) if (!(images[i].complete && images[i].naturalWidth > 0)) ++broken;
    var fetched = performance.getEntriesByType('resource').map(function (r) { return r.name; });
    var out = document.createElement('pre');
    out.id = 'ngvi-browser-check';
    out.textContent = 'NGVI-CHECK images=' + images.length + ' broken=' + broken + ' fetched=' + JSON.stringify(fetched) + ' problems=' + JSON.stringify(problems) + ' END';
    document.body.appendChild(out);
  });
})();
</script>
]=])
string(REPLACE "<head>" "<head>${_checker}" _html "${_html}")
file(WRITE "${WORK}/report/checked.html" "${_html}")

execute_process(COMMAND "${CHROMIUM}" --no-sandbox --disable-gpu --no-first-run --virtual-time-budget=10000
                        --dump-dom "file://${WORK}/report/checked.html"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _dom ERROR_VARIABLE _chromium_err TIMEOUT 120)
string(REGEX MATCH "<pre id=\"ngvi-browser-check\">(NGVI-CHECK [^<]* END)</pre>" _line "${_dom}")
set(_line "${CMAKE_MATCH_1}")
message("chromium exit code: ${_rc}\nresult: ${_line}")
if(NOT _rc EQUAL 0 OR _line STREQUAL "")
  message(FATAL_ERROR "Chromium did not return the checked DOM (exit ${_rc}); its stderr:\n${_chromium_err}")
endif()
if(NOT _line MATCHES "images=([0-9]+) broken=0 fetched=\\[\\] problems=\\[\\] END")
  message(FATAL_ERROR "report.html failed in the browser: ${_line}")
endif()
if(CMAKE_MATCH_1 LESS 1)
  message(FATAL_ERROR "report.html shows no figure: ${_line}")
endif()
message(STATUS "report.html: ${CMAKE_MATCH_1} figure(s) decoded, nothing fetched, no error")
