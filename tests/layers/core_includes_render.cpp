// A core/ source that reaches up into the painters: the layer_rules tests expect it rejected.
#include "render/style/Theme.h"
