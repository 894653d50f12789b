# Writes a C++ source holding the preset JSON files as raw string literals.
file(READ ${MODELS} _models)
file(READ ${ACCELERATORS} _accelerators)
file(READ ${DEFAULT_PLAN} _default_plan)
file(READ ${EXAMPLE_B_PLAN} _example_b_plan)
file(WRITE ${OUT} "// Generated from resources/presets by cmake/EmbedPresets.cmake. Do not edit.\n"
  "#include <string_view>\n"
  "namespace trainplan::embedded {\n"
  "extern const std::string_view kModelsJson = R\"TRAINPLAN_JSON(${_models})TRAINPLAN_JSON\";\n"
  "extern const std::string_view kAcceleratorsJson = R\"TRAINPLAN_JSON(${_accelerators})TRAINPLAN_JSON\";\n"
  "extern const std::string_view kDefaultPlanJson = R\"TRAINPLAN_JSON(${_default_plan})TRAINPLAN_JSON\";\n"
  "extern const std::string_view kExampleBPlanJson = R\"TRAINPLAN_JSON(${_example_b_plan})TRAINPLAN_JSON\";\n"
  "}\n")
