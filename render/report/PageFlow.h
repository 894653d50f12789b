// Flows blocks of measured height onto pages of one size, top to bottom: a block goes on the
// current page when it fits there, and a new page starts only when it does not. Drawings are
// flexible: one may shrink (down to its minimum) to finish a page rather than leave a band
// empty, and the space a page leaves over is shared out among its flexible blocks (up to their
// maximum), so pages end full instead of with a blank bottom half.
#pragma once

#include <QRectF>
#include <QSizeF>

#include <vector>

struct FlowBlock {
    double height = 0;     // preferred height, px
    double minHeight = 0;  // may shrink to this to fit the page's rest; <= 0: fixed at height
    double maxHeight = 0;  // may grow to this from the page's leftover; <= 0: fixed at height
};

struct FlowPlacement {
    int page = 0;
    QRectF rect;  // in page coordinates: (0, 0) is the page body's top left
};

class PageFlow {
public:
    PageFlow(QSizeF page, double gap);

    // One placement per block, in order. A block taller than a page is given the whole page
    // (callers split long text into page-sized blocks first).
    std::vector<FlowPlacement> place(const std::vector<FlowBlock>& blocks) const;
    static int pageCount(const std::vector<FlowPlacement>& placements);

private:
    QSizeF page_;
    double gap_;
};
