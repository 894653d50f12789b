# What each layer may include (docs/architecture.md), checked at configure time by
# core/ and render/, and in script mode by the layer_rules tests:
#   cmake -DLAYER=core|render -DFILES=a.cpp;b.h -P cmake/LayerRules.cmake
# fails with a message naming the file and the include when a rule is broken.

# core/: plain C++ and nlohmann/json, no Qt at all.
set(TRAINPLAN_FORBIDDEN_core "#include *[<\"](Q[A-Za-z]|Qt)")
# render/: QtGui and Svg, never Widgets or Charts.
set(TRAINPLAN_FORBIDDEN_render "#include *[<\"](QtWidgets|QtCharts|QWidget|QApplication|QChart|QAbstractButton|QLabel|QDialog|QMainWindow|QToolTip|QStyle|Q[A-Za-z]*Widget|Q[A-Za-z]*Series|Q[A-Za-z]*Axis)[>/\".]")

function(trainplan_check_layer layer)
  set(_rule "${TRAINPLAN_FORBIDDEN_${layer}}")
  if(NOT _rule)
    message(FATAL_ERROR "LayerRules: no rule for layer '${layer}'")
  endif()
  foreach(_file IN LISTS ARGN)
    file(STRINGS ${_file} _hits REGEX "${_rule}")
    if(_hits)
      message(FATAL_ERROR "${layer}/ must not include this: ${_file}: ${_hits} (docs/architecture.md)")
    endif()
  endforeach()
endfunction()

# Every library `target` links, directly or through what it links (LINK_LIBRARIES, then each
# target's INTERFACE_LINK_LIBRARIES), so a rule holds for the real link line, not one level of it.
function(trainplan_linked_libraries target out)
  set(_seen)
  get_target_property(_todo ${target} LINK_LIBRARIES)
  if(NOT _todo)
    set(_todo)
  endif()
  while(_todo)
    list(POP_FRONT _todo _lib)
    if(_lib IN_LIST _seen OR _lib MATCHES "^\\$<")
      continue()
    endif()
    list(APPEND _seen ${_lib})
    if(TARGET ${_lib})
      get_target_property(_aliased ${_lib} ALIASED_TARGET)
      if(_aliased)
        list(APPEND _seen ${_aliased})
        set(_lib ${_aliased})
      endif()
      get_target_property(_next ${_lib} INTERFACE_LINK_LIBRARIES)
      if(_next)
        list(APPEND _todo ${_next})
      endif()
      get_target_property(_type ${_lib} TYPE)
      if(_type STREQUAL "STATIC_LIBRARY")
        get_target_property(_private ${_lib} LINK_LIBRARIES)
        if(_private)
          list(APPEND _todo ${_private})
        endif()
      endif()
    endif()
  endwhile()
  set(${out} ${_seen} PARENT_SCOPE)
endfunction()

# `layer` names the rule: core links no Qt; render and cli (the command-line tool) link no
# Widgets, Charts or OpenGL, however indirectly.
function(trainplan_check_links target layer)
  trainplan_linked_libraries(${target} _links)
  foreach(_lib IN LISTS _links)
    if((layer STREQUAL "core" AND _lib MATCHES "^Qt") OR (layer MATCHES "^(render|cli)$" AND _lib MATCHES "Qt6?::(Widgets|Charts|OpenGL|OpenGLWidgets)$"))
      message(FATAL_ERROR "${target} (${layer}) must not link ${_lib}, not even through another library (docs/architecture.md)")
    endif()
  endforeach()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND LAYER)
  trainplan_check_layer(${LAYER} ${FILES})
endif()
