// Benchmark: the full PDF report of the default plan, and the slide set.
// Target: PDF export under 1 s. Run offscreen: QT_QPA_PLATFORM=offscreen ./bench_report
#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/analysis/Analysis.h"
#include "core/base/Units.h"
#include "core/planfile/WorkedExamples.h"
#include "render/report/PdfReport.h"
#include "render/report/ReportContext.h"
#include "render/report/SlideExport.h"

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QTemporaryDir dir;
    std::vector<double> pdf;
    int pages = 0;
    for (int i = 0; i < 10; ++i) {
        QElapsedTimer t;
        t.start();
        ReportContext context(trainplan::analyse(trainplan::defaultPlan()));  // included: a fresh export builds its own charts
        QString error;
        if (!pdfreport::write(context, dir.filePath("report.pdf"), QPageSize::A4, &error, &pages)) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
        pdf.push_back(double(t.nsecsElapsed()) / trainplan::units::nanosecondsPerMillisecond);
    }
    std::sort(pdf.begin(), pdf.end());
    std::printf("PDF report, default plan, %d pages: median %.0f ms, worst %.0f ms over %zu runs (target < 1000 ms: %s)\n", pages,
        pdf[pdf.size() / 2], pdf.back(), pdf.size(), pdf[pdf.size() / 2] < 1000 ? "met" : "NOT met");

    QElapsedTimer t;
    t.start();
    ReportContext context(trainplan::analyse(trainplan::defaultPlan()));
    QString error;
    QStringList written;
    slideexport::writeAll(context, dir.filePath("slides"), &error, &written);
    std::printf("slides (PNG 1x and 2x, SVG, deck): %lld files in %.0f ms\n", (long long)written.size(),
                double(t.nsecsElapsed()) / trainplan::units::nanosecondsPerMillisecond);
    return 0;
}
