#include "render/report/PageFlow.h"

#include <algorithm>

PageFlow::PageFlow(QSizeF page, double gap)
    : page_(page)
    , gap_(gap)
{
}

namespace {

double lowest(const FlowBlock& b) { return b.minHeight > 0 ? std::min(b.minHeight, b.height) : b.height; }
double highest(const FlowBlock& b) { return b.maxHeight > 0 ? std::max(b.maxHeight, b.height) : b.height; }

}  // namespace

std::vector<FlowPlacement> PageFlow::place(const std::vector<FlowBlock>& blocks) const
{
    const double pageHeight = page_.height();
    // First pass: which page each block is on, and its height there.
    std::vector<int> pageOf(blocks.size());
    std::vector<double> height(blocks.size());
    int page = 0;
    double used = 0;  // height taken on the current page, gaps included
    bool empty = true;
    for (size_t i = 0; i < blocks.size(); ++i) {
        const FlowBlock& b = blocks[i];
        const double start = empty ? 0 : used + gap_;
        const double room = pageHeight - start;
        double h = b.height;
        if (h > room && !empty) {
            if (lowest(b) <= room) {
                h = room;  // a drawing shrinks to finish this page
            } else {
                ++page;
                used = 0;
                empty = true;
            }
        }
        const double top = empty ? 0 : used + gap_;
        h = std::min(h, pageHeight - top);
        pageOf[i] = page;
        height[i] = h;
        used = top + h;
        empty = false;
    }
    // Second pass, page by page: share the space left over among the flexible blocks, then stack.
    std::vector<FlowPlacement> out(blocks.size());
    for (size_t first = 0; first < blocks.size();) {
        size_t last = first;
        double total = 0;
        while (last < blocks.size() && pageOf[last] == pageOf[first]) {
            total += height[last] + (last > first ? gap_ : 0);
            ++last;
        }
        double left = pageHeight - total;
        // Repeatedly give every block that can still grow an equal share, until the space or
        // the growth runs out (a block that reaches its maximum leaves its share to the others).
        for (int round = 0; round < 8 && left > 0.5; ++round) {
            int growing = 0;
            for (size_t i = first; i < last; ++i)
                growing += highest(blocks[i]) > height[i] + 0.5;
            if (growing == 0)
                break;
            const double share = left / growing;
            for (size_t i = first; i < last; ++i) {
                const double grow = std::min(share, highest(blocks[i]) - height[i]);
                if (grow > 0) {
                    height[i] += grow;
                    left -= grow;
                }
            }
        }
        double y = 0;
        for (size_t i = first; i < last; ++i) {
            out[i] = FlowPlacement{pageOf[i], QRectF(0, y, page_.width(), height[i])};
            y += height[i] + gap_;
        }
        first = last;
    }
    return out;
}

int PageFlow::pageCount(const std::vector<FlowPlacement>& placements)
{
    return placements.empty() ? 0 : placements.back().page + 1;
}
