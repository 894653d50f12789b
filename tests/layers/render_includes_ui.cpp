// A render/ source that reaches up into the window: the layer_rules tests expect it rejected.
#include "ui/window/MainWindow.h"
