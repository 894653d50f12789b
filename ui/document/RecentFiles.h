// The most recently opened or saved plans, kept in QSettings.
#pragma once

#include <QStringList>

namespace recentfiles {

inline constexpr int kMaxRecent = 8;
QStringList list();
void add(const QString& path);
void clear();

}  // namespace recentfiles
