// The report's page flow: blocks go on the current page while they fit, a new page starts only
// when the next block does not, drawings shrink to finish a page and grow into what it leaves,
// and nothing overlaps or leaves its page.
#include <QtTest>

#include "render/report/PageFlow.h"

class TestPageFlow : public QObject {
    Q_OBJECT

private slots:
    void fixedBlocksStackAndBreakOnlyWhenFull();
    void drawingsShrinkToFinishAPageAndGrowIntoItsRest();
    void nothingOverlapsOrLeavesItsPage();
};

void TestPageFlow::fixedBlocksStackAndBreakOnlyWhenFull()
{
    const PageFlow flow(QSizeF(600, 1000), 10);
    const auto placed = flow.place({{400}, {400}, {300}, {100}});
    QCOMPARE(placed.size(), size_t(4));
    QCOMPARE(placed[0].page, 0);
    QCOMPARE(placed[1].page, 0);
    QCOMPARE(placed[1].rect.top(), 410.0);
    QCOMPARE(placed[2].page, 1);  // 820 + 10 + 300 > 1000
    QCOMPARE(placed[2].rect.top(), 0.0);
    QCOMPARE(placed[3].page, 1);  // it fits under the third: no page of its own
    QCOMPARE(PageFlow::pageCount(placed), 2);
    // A block taller than a page gets the page.
    const auto tall = flow.place({{100}, {1500}});
    QCOMPARE(tall[1].page, 1);
    QCOMPARE(tall[1].rect.height(), 1000.0);
}

void TestPageFlow::drawingsShrinkToFinishAPageAndGrowIntoItsRest()
{
    const PageFlow flow(QSizeF(600, 1000), 10);
    // 600 of text, then a drawing that prefers 450 but can make do with 300: it shrinks to the
    // 390 left rather than leaving them empty.
    auto placed = flow.place({{600}, {450, 300, 500}});
    QCOMPARE(placed[1].page, 0);
    QCOMPARE(placed[1].rect.height(), 390.0);
    // One that cannot shrink that far moves on, and the page it opens it grows into, up to its most.
    placed = flow.place({{600}, {450, 420, 700}, {200}});
    QCOMPARE(placed[1].page, 1);
    QCOMPARE(placed[1].rect.height(), 700.0);
    QCOMPARE(placed[2].page, 1);
    QCOMPARE(placed[2].rect.top(), 710.0);
    // Two drawings share a page's leftover equally; text keeps its height.
    placed = flow.place({{200}, {300, 200, 600}, {300, 200, 320}});
    QCOMPARE(placed[0].rect.height(), 200.0);
    QCOMPARE(placed[2].rect.height(), 320.0);  // reached its most; the rest goes to the first
    QCOMPARE(placed[1].rect.height(), 1000.0 - 20 - 200 - 320);
}

void TestPageFlow::nothingOverlapsOrLeavesItsPage()
{
    const PageFlow flow(QSizeF(500, 800), 12);
    std::vector<FlowBlock> blocks;
    for (int i = 0; i < 60; ++i)
        blocks.push_back(i % 5 == 0 ? FlowBlock{260, 180, 420} : FlowBlock{double(40 + (i * 37) % 230)});
    const auto placed = flow.place(blocks);
    for (size_t i = 0; i < placed.size(); ++i) {
        QVERIFY(placed[i].rect.top() >= 0 && placed[i].rect.bottom() <= 800 + 1e-9);
        QVERIFY(placed[i].rect.height() >= (blocks[i].minHeight > 0 ? blocks[i].minHeight : blocks[i].height) - 1e-9);
        if (i > 0 && placed[i].page == placed[i - 1].page)
            QVERIFY(placed[i].rect.top() >= placed[i - 1].rect.bottom() + 12 - 1e-9);
        if (i > 0 && placed[i].page != placed[i - 1].page) {
            // A new page only because this block did not fit where the last one ended.
            QCOMPARE(placed[i].page, placed[i - 1].page + 1);
            const double room = 800 - placed[i - 1].rect.bottom() - 12;
            const double least = blocks[i].minHeight > 0 ? blocks[i].minHeight : blocks[i].height;
            QVERIFY2(least > room, qPrintable(QString("block %1 (%2) would have fitted in %3").arg(i).arg(least).arg(room)));
        }
    }
}

QTEST_MAIN(TestPageFlow)
#include "tst_pageflow.moc"
