# What each layer may include (docs/architecture.md), checked at configure time by
# core/ and render/, and in script mode by the layer_rules tests:
#   cmake -DLAYER=core|render -DFILES=a.cpp;b.h -P cmake/LayerRules.cmake
#   cmake -DAREAS_DOC=docs/architecture.md -DAREAS_SOURCE=core -P cmake/LayerRules.cmake
# fails with a message naming the file and the include when a rule is broken.
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_policy(VERSION 3.25)  # IN_LIST and empty list items, as in the project
endif()

# Includes start at the repository root, so each names its layer ("core/plan/Plan.h"); a layer
# includes only the layers below it.
# core/: plain C++ and nlohmann/json, no Qt at all, nothing of render/ or ui/.
set(TRAINPLAN_FORBIDDEN_core "#include *([<\"](Q[A-Za-z]|Qt)|\"(render|ui)/)")
# render/: QtGui and Svg, never Widgets or Charts, nothing of ui/.
set(TRAINPLAN_FORBIDDEN_render "#include *(\"ui/|[<\"](QtWidgets|QtCharts|QWidget|QApplication|QChart|QAbstractButton|QLabel|QDialog|QMainWindow|QToolTip|QStyle|Q[A-Za-z]*Widget|Q[A-Za-z]*Series|Q[A-Za-z]*Axis)[>/\".])")

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

# The core's areas (core/<area>) and what each may include, read from the one table that
# states them: docs/architecture.md's "Where things live", one row per area, lowest first. A row
# reads | `core/<area>` | what it holds | the areas it may include, by name |; words of that
# last cell that are not single lower-case words ("the standard library", "nlohmann/json") name
# no area, and "every area above" names them all. Sets TRAINPLAN_CORE_AREAS (in table order) and
# TRAINPLAN_AREA_MAY_INCLUDE_<area> in the caller's scope; fails on a row that allows an area not
# above it (so the table itself only points down) or names an area the table lacks.
function(trainplan_read_core_areas doc)
  # Read as text and split by hand: a row's ';' and '[' would otherwise cut or join list items.
  file(READ ${doc} _text)
  string(REGEX REPLACE "[][;]" "," _text "${_text}")
  string(REPLACE "\n" ";" _lines "${_text}")
  list(FILTER _lines INCLUDE REGEX "^\\| `core/[a-z]+` \\|")
  set(_rows ${_lines})
  if(NOT _rows)
    message(FATAL_ERROR "${doc}: no | `core/<area>` | ... | rows (the \"Where things live\" table)")
  endif()
  set(_areas)
  foreach(_row IN LISTS _rows)
    string(REGEX MATCH "^\\| `core/([a-z]+)` \\|" _ignored "${_row}")
    set(_area ${CMAKE_MATCH_1})
    string(REGEX REPLACE "^.*\\|([^|]*)\\|[ ]*$" "\\1" _cell "${_row}")
    string(REPLACE "," ";" _items "${_cell}")
    set(_allowed)
    foreach(_item IN LISTS _items)
      string(STRIP "${_item}" _item)
      string(REPLACE "`" "" _item "${_item}")
      if(_item STREQUAL "every area above")
        list(APPEND _allowed ${_areas})
      elseif(_item MATCHES "^[a-z]+$")
        if(NOT _item IN_LIST _areas)
          message(FATAL_ERROR "${doc}: core/${_area} may include '${_item}', which is not an area above it in the table: "
                              "areas include only downward (docs/architecture.md)")
        endif()
        list(APPEND _allowed ${_item})
      endif()
    endforeach()
    list(APPEND _areas ${_area})
    set(TRAINPLAN_AREA_MAY_INCLUDE_${_area} ${_allowed} PARENT_SCOPE)
  endforeach()
  set(TRAINPLAN_CORE_AREAS ${_areas} PARENT_SCOPE)
endfunction()

# Every file under `srcdir` (laid out as <area>/<file>, included as "core/<area>/<file>") includes
# another area's header only when
# docs/architecture.md's table lets its area include that area; a folder missing from the table
# fails too, so a new area is placed in the order before it is used.
function(trainplan_check_core_areas doc srcdir)
  get_filename_component(srcdir ${srcdir} ABSOLUTE)
  trainplan_read_core_areas(${doc})
  file(GLOB _folders LIST_DIRECTORIES true RELATIVE ${srcdir} ${srcdir}/*)
  foreach(_folder IN LISTS _folders)
    if(IS_DIRECTORY ${srcdir}/${_folder} AND NOT _folder IN_LIST TRAINPLAN_CORE_AREAS)
      message(FATAL_ERROR "core area ${_folder}/ (${srcdir}) has no row in ${doc}'s table: add it where it belongs in the order")
    endif()
  endforeach()
  file(GLOB_RECURSE _files RELATIVE ${srcdir} ${srcdir}/*.h ${srcdir}/*.cpp)
  foreach(_file IN LISTS _files)
    string(REGEX MATCH "^[^/]+" _area "${_file}")
    file(STRINGS ${srcdir}/${_file} _includes REGEX "^[ ]*#[ ]*include[ ]*\"core/[a-z]+/")
    foreach(_include IN LISTS _includes)
      string(REGEX MATCH "\"core/([a-z]+)/" _ignored "${_include}")
      set(_to ${CMAKE_MATCH_1})
      if(_to STREQUAL _area OR _to IN_LIST TRAINPLAN_AREA_MAY_INCLUDE_${_area})
        continue()
      endif()
      if(_to IN_LIST TRAINPLAN_CORE_AREAS)
        message(FATAL_ERROR "upward include between core areas: ${srcdir}/${_file}: ${_include}: ${_area}/ may include only "
                            "'${TRAINPLAN_AREA_MAY_INCLUDE_${_area}}' (${doc})")
      endif()
      message(FATAL_ERROR "${srcdir}/${_file}: ${_include}: '${_to}' is no core area in ${doc}'s table")
    endforeach()
  endforeach()
  list(LENGTH _files _count)
  list(JOIN TRAINPLAN_CORE_AREAS " < " _order)
  message(STATUS "${_count} files include only downward: ${_order}")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND LAYER)
  trainplan_check_layer(${LAYER} ${FILES})
endif()
if(CMAKE_SCRIPT_MODE_FILE AND AREAS_DOC)
  trainplan_check_core_areas(${AREAS_DOC} ${AREAS_SOURCE})
endif()
