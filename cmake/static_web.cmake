# Copies the demo page (web/) into the static demo's folder (cmake -P script; apps/web), its
# index.html switched from the WebSocket of `tide serve` to the Web Worker (web/worker.js).
# Inputs: WEB_DIR (web/), OUT_DIR (the folder to fill).
file(GLOB files RELATIVE "${WEB_DIR}" "${WEB_DIR}/*")
file(MAKE_DIRECTORY "${OUT_DIR}")
foreach(f IN LISTS files)
  if(f MATCHES "^\\." OR f MATCHES "~$" OR f STREQUAL "index.html")
    continue()
  endif()
  file(COPY_FILE "${WEB_DIR}/${f}" "${OUT_DIR}/${f}" ONLY_IF_DIFFERENT)
endforeach()
file(READ "${WEB_DIR}/index.html" page)
set(marker "<meta name=\"tide-transport\" content=\"websocket\">")
string(FIND "${page}" "${marker}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${WEB_DIR}/index.html: no ${marker} to switch to the worker")
endif()
string(REPLACE "${marker}" "<meta name=\"tide-transport\" content=\"worker\">" page "${page}")
file(WRITE "${OUT_DIR}/index.html" "${page}")
