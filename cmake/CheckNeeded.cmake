# cmake -DBINARY=path -DFORBIDDEN=regex -P cmake/CheckNeeded.cmake
# Fails, naming the library, when the built binary needs (DT_NEEDED, what its real link line
# left in it) a shared library matching FORBIDDEN.
find_program(_readelf NAMES readelf REQUIRED)
execute_process(COMMAND ${_readelf} -d ${BINARY} OUTPUT_VARIABLE _dynamic RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "cannot read ${BINARY}")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]]*\\]" _needed "${_dynamic}")
foreach(_line IN LISTS _needed)
  if(_line MATCHES "${FORBIDDEN}")
    message(FATAL_ERROR "${BINARY} needs a library it must not: ${_line}")
  endif()
endforeach()
list(LENGTH _needed _count)
message(STATUS "${BINARY}: ${_count} shared libraries, none matching ${FORBIDDEN}")
