#include "core/schedule/ScheduleOrder.h"

#include <algorithm>

namespace trainplan {

void StageOpOrder::reset(ScheduleKind kind, int stage, int p, long long m, int v)
{
    p_ = p;
    v_ = v;
    total_ = m * v;
    switch (kind) {
    case ScheduleKind::GPipe:
        warmup_ = total_;
        break;
    case ScheduleKind::OneFOneB:
    case ScheduleKind::ZeroBubbleH1:
    case ScheduleKind::DualPipe:  // not walked here: its own order is dualPipeOrder() (DualPipe.h)
        warmup_ = std::min<long long>(p - stage - 1, total_);
        break;
    case ScheduleKind::Interleaved:
        warmup_ = std::min<long long>(2LL * (p - stage - 1) + (long long)(v - 1) * p, total_);
        break;
    }
    wDelay_ = kind == ScheduleKind::ZeroBubbleH1 ? stage : -1;
    forwards_ = backwards_ = weightGrads_ = 0;
    forwardCursor_ = backwardCursor_ = weightCursor_ = Cursor{};
    done_ = false;
    select();
}

}  // namespace trainplan
