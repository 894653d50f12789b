# cmake -DNM=nm -DARCHIVES=a.a,b.a -P cmake/ViewsComputeNothing.cmake
# The views compute nothing of their own (docs/architecture.md, "One analysis"): no object of the
# render or ui library may call what computes a plan's figures (the estimate, the step-time model,
# the schedule simulator, analyse, sensitivity, the layout search and what runs it). Read from the
# built archives' undefined symbols, so a call through `using namespace` or a macro counts too.
# Fails naming the object and the call.
#
# Allowed, each the one place that starts its computation:
#   PlanDocument.cpp.o  Analyser::analyse  the document analyses the plan once per change; every
#                                          view reads that Analysis (and what it computes later)
#   SearchRunner.cpp.o  searchLayouts      the window's layout search, on its worker thread
#   SizingRunner.cpp.o  sizeCluster        the sizing window's search over accelerators and GPU
#                                          counts, on its worker thread
# The reality check's entry points (realityCheck, validateModel) analyse published runs, not the
# plan, and are not on the list.
set(_forbidden
    "trainplan::estimate\\("
    "trainplan::estimateInto\\("
    "trainplan::analyse\\("
    "trainplan::Analyser::analyse\\("
    "trainplan::Analyser::estimateAndPredict\\("
    "trainplan::predictStep\\("
    "trainplan::StepTimeWorkspace::predict\\("
    "trainplan::predictedScheduleCosts\\("
    "trainplan::scheduleCosts\\("
    "trainplan::simulateSchedule\\("
    "trainplan::ScheduleSimulator::simulate\\("
    "trainplan::memoryRange\\("
    "trainplan::withAssumedRecompute\\("
    "trainplan::sensitivity\\("
    "trainplan::compareSchedules\\("
    "trainplan::layoutRationale\\("
    "trainplan::searchLayouts\\("
    "trainplan::searchRowOf\\("
    "trainplan::sizeCluster\\(")
set(_allowed
    "PlanDocument\\.cpp\\.o:trainplan::Analyser::analyse\\("
    "SearchRunner\\.cpp\\.o:trainplan::searchLayouts\\("
    "SizingRunner\\.cpp\\.o:trainplan::sizeCluster\\(")

if(NOT NM OR NOT ARCHIVES)
  message(FATAL_ERROR "ViewsComputeNothing: give -DNM=... and -DARCHIVES=a.a,b.a")
endif()
string(REPLACE "," ";" _archives "${ARCHIVES}")
set(_violations)
set(_objects 0)
foreach(_archive IN LISTS _archives)
  execute_process(COMMAND ${NM} -C --undefined-only -A ${_archive} OUTPUT_VARIABLE _symbols RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0 OR NOT _symbols)
    message(FATAL_ERROR "ViewsComputeNothing: cannot read the symbols of ${_archive}")
  endif()
  string(REPLACE ";" "," _symbols "${_symbols}")  # demangled names hold no ';', but keep lines whole
  string(REPLACE "\n" ";" _lines "${_symbols}")
  foreach(_line IN LISTS _lines)
    # "path/lib.a:Object.cpp.o:                 U symbol"
    if(NOT _line MATCHES "^.*:([^:]+\\.o): +U (.*)$")
      continue()
    endif()
    set(_object "${CMAKE_MATCH_1}")
    set(_symbol "${CMAKE_MATCH_2}")
    foreach(_call IN LISTS _forbidden)
      if(_symbol MATCHES "^${_call}")
        set(_ok FALSE)
        foreach(_exception IN LISTS _allowed)
          if("${_object}:${_symbol}" MATCHES "^${_exception}")
            set(_ok TRUE)
          endif()
        endforeach()
        if(NOT _ok)
          list(APPEND _violations "${_object} calls ${_symbol}")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()
if(_violations)
  list(JOIN _violations "\n  " _text)
  message(FATAL_ERROR "a view computes what the analysis owns (read it from the Analysis instead):\n  ${_text}")
endif()
message(STATUS "no view computes a figure: ${ARCHIVES}")
