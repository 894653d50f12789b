// trainplan: the desktop planner. `trainplan [PLAN.json]` opens the plan, or the default
// plan (seed 000's 70B on 2,048 H100s) without an argument.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>

#include "window/MainWindow.h"
#include "trainplan/Version.h"

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName("TrainPlan");
    QApplication::setOrganizationName("TrainPlan");
    QApplication::setApplicationVersion(trainplan::kVersion);
    QApplication::setDesktopFileName("trainplan");

    QCommandLineParser parser;
    parser.setApplicationDescription("Plans large-model pre-training runs.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("plan", "A TrainPlan plan file (.json) to open.", "[PLAN.json]");
    QCommandLineOption screenshot("screenshot", "Render the window to a PNG and exit (works headless).", "FILE.png");
    QCommandLineOption size("size", "Window size for --screenshot, e.g. 1280x800.", "WxH", "1280x800");
    parser.addOption(screenshot);
    parser.addOption(size);
    parser.process(app);

    MainWindow window;
    const QStringList args = parser.positionalArguments();
    if (!args.isEmpty() && !window.openFile(args.first()))
        return 2;
    if (parser.isSet(screenshot)) {
        const QStringList wh = parser.value(size).split('x');
        window.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1280, wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 800);
        window.show();
        // Let delayed layouts (item views re-wrapping text, chart geometry) settle first.
        QElapsedTimer settle;
        settle.start();
        while (settle.elapsed() < 300)
            QApplication::processEvents(QEventLoop::AllEvents, 50);
        return window.grab().save(parser.value(screenshot)) ? 0 : 1;
    }
    window.show();
    return app.exec();
}
