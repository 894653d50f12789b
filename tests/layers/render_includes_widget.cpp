// A render/ source that breaks the layer rule: the layer_rules tests expect it rejected.
#include <QWidget>
