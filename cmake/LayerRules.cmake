# What each layer may include (docs/architecture.md), checked at configure time by
# core/ and render/, and in script mode by the layer_rules tests:
#   cmake -DLAYER=core|render -DFILES=a.cpp;b.h -P cmake/LayerRules.cmake
# fails with a message naming the file and the include when a rule is broken.

# core/: plain C++ and nlohmann/json, no Qt at all.
set(TRAINPLAN_FORBIDDEN_core "#include *[<\"](Q[A-Za-z]|Qt)")
# render/: QtGui, Svg and PrintSupport, never Widgets or Charts.
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

function(trainplan_check_links target layer)
  get_target_property(_links ${target} LINK_LIBRARIES)
  foreach(_lib IN LISTS _links)
    if((layer STREQUAL "core" AND _lib MATCHES "^Qt") OR (layer STREQUAL "render" AND _lib MATCHES "Widgets|Charts|OpenGL"))
      message(FATAL_ERROR "${layer}/ must not link ${_lib} (docs/architecture.md)")
    endif()
  endforeach()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND LAYER)
  trainplan_check_layer(${LAYER} ${FILES})
endif()
