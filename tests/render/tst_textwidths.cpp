// The remembered text widths (render/style/TextWidths.h) are exactly what QFontMetricsF
// measures: per font (the same string in two fonts has two widths), for text first seen and
// text seen before, and still after a font's table started over or the fonts' list did.
#include <QGuiApplication>
#include <QtTest>

#include "render/style/TextWidths.h"

class TestTextWidths : public QObject {
    Q_OBJECT

private slots:
    void widthsAreTheMetricsWidths();
};

void TestTextWidths::widthsAreTheMetricsWidths()
{
    QFont regular = QGuiApplication::font();
    QFont bold = regular;
    bold.setBold(true);
    QFont large = regular;
    large.setPointSizeF(regular.pointSizeF() * 2);
    const QStringList texts = {"Stage 12 · node 3", "TP 8 · CP 2 · layers 1-4", "× 64", "W", ""};
    TextWidths widths;
    for (int pass = 0; pass < 2; ++pass)  // first seen, then remembered
        for (const QFont& font : {regular, bold, large})
            for (const QString& text : texts)
                QCOMPARE(widths.advance(font, text), QFontMetricsF(font).horizontalAdvance(text));
    QVERIFY(widths.advance(bold, texts[0]) > widths.advance(regular, texts[0]));
    QVERIFY(widths.advance(large, texts[0]) > widths.advance(regular, texts[0]));

    // Past kMaxWidths strings the table starts over; past kMaxFonts fonts the list does.
    for (int i = 0; i < TextWidths::kMaxWidths + 10; ++i) {
        const QString text = QString("label %1").arg(i);
        QCOMPARE(widths.advance(regular, text), QFontMetricsF(regular).horizontalAdvance(text));
    }
    for (int size = 6; size < 6 + int(TextWidths::kMaxFonts) + 3; ++size) {
        QFont sized = regular;
        sized.setPixelSize(size);
        QCOMPARE(widths.advance(sized, texts[1]), QFontMetricsF(sized).horizontalAdvance(texts[1]));
    }
    QCOMPARE(widths.advance(bold, texts[1]), QFontMetricsF(bold).horizontalAdvance(texts[1]));
}

QTEST_MAIN(TestTextWidths)
#include "tst_textwidths.moc"
