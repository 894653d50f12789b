// Reading a file that is supposed to be small (a plan, a recovery copy, an imported config),
// safely whatever the path names: only a regular file is read (a device such as /dev/zero, a
// named pipe or a folder is refused without blocking on it), and never more than a bound.
#pragma once

#include <cstddef>
#include <string>

#include "core/base/Units.h"

namespace trainplan {

// Plans, recovery copies and imported configurations are kilobytes; nothing legitimate is near this.
inline constexpr size_t kMaxInputFileBytes = 16 * units::mebibyte;

// The file's bytes. Throws PlanError (path "") naming `path` and why: missing, unreadable, not a
// regular file, or larger than `maxBytes`.
std::string readRegularFile(const std::string& path, size_t maxBytes = kMaxInputFileBytes);

}  // namespace trainplan
