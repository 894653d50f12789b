// A render/ source that keeps the rule (QtGui only): the layer_rules tests expect it accepted.
#include <QPainter>
#include "render/charts/MemoryChartPainter.h"
