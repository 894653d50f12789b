// Colours and sizes shared by every view, so the window, charts and exports agree.
#pragma once

#include <QColor>

#include "estimate/Warning.h"

namespace theme {

// Memory components, in stacking order (weights at the bottom).
inline QColor weights() { return QColor(0x3b, 0x82, 0xf6); }
inline QColor gradients() { return QColor(0x8b, 0x5c, 0xf6); }
inline QColor optimizer() { return QColor(0xf5, 0x9e, 0x0b); }
inline QColor activations() { return QColor(0x10, 0xb9, 0x81); }
inline QColor buffers() { return QColor(0x9c, 0xa3, 0xaf); }
inline QColor capacity() { return QColor(0xdc, 0x26, 0x26); }

// Step time parts.
inline QColor compute() { return QColor(0x25, 0x63, 0xeb); }
inline QColor bubble() { return QColor(0xd1, 0xd5, 0xdb); }
inline QColor memoryBound() { return QColor(0x93, 0xc5, 0xfd); }
inline QColor recompute() { return QColor(0xfb, 0xbf, 0x24); }
inline QColor tpComm() { return QColor(0x06, 0xb6, 0xd4); }
inline QColor ppComm() { return QColor(0xa8, 0x55, 0xf7); }
inline QColor dpExposed() { return QColor(0xef, 0x44, 0x44); }
inline QColor dpHidden() { return QColor(0xfc, 0xa5, 0xa5); }

inline QColor severity(trainplan::Severity s)
{
    switch (s) {
    case trainplan::Severity::Error: return QColor(0xdc, 0x26, 0x26);
    case trainplan::Severity::Warning: return QColor(0xd9, 0x77, 0x06);
    case trainplan::Severity::Info: return QColor(0x25, 0x63, 0xeb);
    }
    return Qt::black;
}
inline QColor ok() { return QColor(0x16, 0xa3, 0x4a); }
inline QColor highlight() { return QColor(0xfd, 0xe6, 0x8a); }

}  // namespace theme
