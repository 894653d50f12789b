// The report's views in the window: the derivation's Markdown copy is the core's derivation
// and follows the plan (and the export writes the same), and presentation mode steps through
// the slides. The report and slides themselves: tests/render/tst_report.cpp.
#include <QClipboard>
#include <QTemporaryDir>
#include <QtTest>

#include "core/analysis/Analysis.h"
#include "core/planfile/WorkedExamples.h"
#include "core/text/Derivation.h"
#include "core/text/TextReport.h"
#include "render/report/Exporter.h"
#include "render/report/ReportContext.h"
#include "render/report/SlideExport.h"
#include "ui/derivation/DerivationView.h"
#include "ui/document/PlanDocument.h"
#include "ui/window/PresentationWindow.h"

class TestReportViews : public QObject {
    Q_OBJECT

private slots:
    void markdownCopyIsTheDerivation();
    void presentationStepsThroughTheSlides();

private:
    QTemporaryDir dir_;
};

void TestReportViews::markdownCopyIsTheDerivation()
{
    PlanDocument doc;
    DerivationView view(&doc);
    const auto expected = trainplan::derivationToMarkdown(trainplan::derive(doc.analysis()));
    QCOMPARE(view.markdown().toStdString(), expected);
    view.copyMarkdown();
    QCOMPARE(QGuiApplication::clipboard()->text().toStdString(), expected);
    QVERIFY(view.plainText().contains("Young 1974"));
    QVERIFY(view.html().contains("5.93e23 FLOPs"));
    // It follows the plan.
    doc.edit("mfu", [](trainplan::Plan& p) { p.training.mfu = 0.3; });
    QVERIFY(view.markdown().contains("11.98 days"));

    const QString md = dir_.filePath("plan.md");
    ExportRequest request;
    request.markdownPath = md;
    QString error;
    QVERIFY(exporter::run(doc.analysis(), "plan", request, &error));
    QFile f(md);
    QVERIFY(f.open(QIODevice::ReadOnly));
    // The whole report, as the CLI writes it: the figures, then every derivation step.
    const std::string written = f.readAll().toStdString();
    QCOMPARE(written, trainplan::estimateToMarkdown(doc.analysis(), doc.plan().name.empty() ? "plan" : doc.plan().name));
    QVERIFY(written.find("\n## Memory per GPU") != std::string::npos);
    QVERIFY(written.find("\n## Derivation\n") < written.find("Young 1974"));
}

void TestReportViews::presentationStepsThroughTheSlides()
{
    PresentationWindow window(trainplan::analyse(trainplan::defaultPlan()));
    window.setAttribute(Qt::WA_DeleteOnClose, false);
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ReportContext context(trainplan::analyse(trainplan::defaultPlan()));
    QCOMPARE(window.slideCount(), int(slideexport::slides(context).size()));
    QCOMPARE(window.currentSlide(), 0);
    QTest::keyClick(&window, Qt::Key_Right);
    QTest::keyClick(&window, Qt::Key_Space);
    QCOMPARE(window.currentSlide(), 2);
    QTest::keyClick(&window, Qt::Key_Left);
    QCOMPARE(window.currentSlide(), 1);
    QTest::keyClick(&window, Qt::Key_End);
    QCOMPARE(window.currentSlide(), window.slideCount() - 1);
    QTest::keyClick(&window, Qt::Key_Right);  // stays on the last slide
    QCOMPARE(window.currentSlide(), window.slideCount() - 1);
    const QImage shot = window.grab().toImage();
    QVERIFY(!shot.isNull());
    QTest::keyClick(&window, Qt::Key_Escape);
    QVERIFY(!window.isVisible());
}

QTEST_MAIN(TestReportViews)
#include "tst_reportviews.moc"
