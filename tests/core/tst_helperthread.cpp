// HelperThread (core/base/HelperThread.h): a piece of work runs on another thread, wait() returns
// after it has finished and hands on what it threw, and one thread serves many pieces.
#include <QtTest>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "core/base/HelperThread.h"

using trainplan::HelperThread;

class TestHelperThread : public QObject {
    Q_OBJECT

private slots:
    void runsOnAnotherThreadUntilWaitReturns();
    void servesManyPiecesOnOneThread();
    void waitRethrowsWhatThePieceThrew();
    void destroyedWhileWorkingFinishesThePiece();
};

void TestHelperThread::runsOnAnotherThreadUntilWaitReturns()
{
    HelperThread helper;
    std::thread::id ranOn;
    std::atomic<bool> release{false};
    bool finished = false;
    helper.run([&] {
        ranOn = std::this_thread::get_id();
        while (!release)
            std::this_thread::yield();
        finished = true;
    });
    // run() returned while the piece still spins: it did not run it in place.
    release = true;
    helper.wait();
    QVERIFY(finished);
    QVERIFY(ranOn != std::this_thread::get_id());
}

void TestHelperThread::servesManyPiecesOnOneThread()
{
    HelperThread helper;
    std::thread::id first;
    int sum = 0;
    for (int i = 1; i <= 100; ++i) {
        std::thread::id ranOn;
        helper.run([&, i] {
            sum += i;
            ranOn = std::this_thread::get_id();
        });
        helper.wait();
        if (i == 1)
            first = ranOn;
        QVERIFY(ranOn == first);  // the same thread, kept between pieces
    }
    QCOMPARE(sum, 5050);
}

void TestHelperThread::waitRethrowsWhatThePieceThrew()
{
    HelperThread helper;
    helper.run([] { throw std::runtime_error("the piece failed"); });
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, helper.wait());
    // Thrown once: the next piece runs and waits normally.
    bool ran = false;
    helper.run([&] { ran = true; });
    helper.wait();
    QVERIFY(ran);
}

void TestHelperThread::destroyedWhileWorkingFinishesThePiece()
{
    std::atomic<bool> finished{false};
    {
        HelperThread helper;
        helper.run([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            finished = true;
        });
    }  // the destructor joins after the piece, never abandoning it mid-way
    QVERIFY(finished);
}

QTEST_APPLESS_MAIN(TestHelperThread)
#include "tst_helperthread.moc"
