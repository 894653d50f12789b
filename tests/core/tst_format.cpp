// Counts in text output: singular for exactly one, plural otherwise, including fractions.
#include <QtTest>

#include "core/base/Format.h"

using namespace trainplan;

class TestFormat : public QObject {
    Q_OBJECT

private slots:
    void counts_data();
    void counts();
};

void TestFormat::counts_data()
{
    QTest::addColumn<double>("count");
    QTest::addColumn<QString>("singular");
    QTest::addColumn<QString>("plural");
    QTest::addColumn<QString>("expected");
    QTest::newRow("one") << 1.0 << "micro-batch" << "micro-batches" << "1 micro-batch";
    QTest::newRow("many") << 16.0 << "micro-batch" << "micro-batches" << "16 micro-batches";
    QTest::newRow("fraction") << 1.375 << "micro-batch" << "micro-batches" << "1.38 micro-batches";
    QTest::newRow("zero") << 0.0 << "error" << "" << "0 errors";
    QTest::newRow("one warning") << 1.0 << "warning" << "" << "1 warning";
    QTest::newRow("thousands") << 2048.0 << "GPU" << "" << "2,048 GPUs";
}

void TestFormat::counts()
{
    QFETCH(double, count);
    QFETCH(QString, singular);
    QFETCH(QString, plural);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(countOf(count, singular.toStdString(), plural.toStdString())), expected);
}

QTEST_GUILESS_MAIN(TestFormat)
#include "tst_format.moc"
