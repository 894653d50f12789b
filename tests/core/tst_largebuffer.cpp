// allocateLarge: small buffers are plain; large ones up to kWholeHugePagesUpTo are whole aligned
// huge pages, bigger ones have the whole huge pages inside them marked for transparent huge
// pages (LargeBuffer.h says why); allocateHugePages gives whole aligned huge pages; the vector
// allocator uses allocateLarge.
#include <QtTest>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/LargeBuffer.h"

using namespace trainplan;

namespace {

// The VmFlags of the mapping holding `address` (/proc/self/smaps), or "" when there is none.
std::string mappingFlags(const void* address)
{
    std::ifstream smaps("/proc/self/smaps");
    const auto at = std::uintptr_t(address);
    bool inside = false;
    std::string line;
    while (std::getline(smaps, line)) {
        unsigned long long from = 0, to = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> from >> dash >> to && dash == '-' && line.find(':') > line.find(' ')) {
            inside = at >= from && at < to;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0)
            return line;
    }
    return {};
}

bool transparentHugePagesOffered()
{
    std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string text;
    std::getline(setting, text);
    return text.find("[always]") != std::string::npos || text.find("[madvise]") != std::string::npos;
}

}  // namespace

class TestLargeBuffer : public QObject {
    Q_OBJECT

private slots:
    void smallBuffersArePlainMemory()
    {
        for (std::size_t bytes : {std::size_t(0), std::size_t(1), std::size_t(100), kLargeBufferBytes - 1}) {
            auto* p = static_cast<unsigned char*>(allocateLarge(bytes));
            QVERIFY(p);
            QCOMPARE(std::uintptr_t(p) % alignof(std::max_align_t), std::uintptr_t(0));
            if (bytes > 0) {
                p[0] = 1;
                p[bytes - 1] = 2;
            }
            releaseLarge(p);
        }
    }

    void largeBuffersHintTheirHugePages()
    {
        for (std::size_t bytes : {kLargeBufferBytes, 3 * kHugePageBytes, 7 * kHugePageBytes / 2 + 12345, kWholeHugePagesUpTo,
                 kWholeHugePagesUpTo + 1, 17 * kHugePageBytes + 12345}) {
            auto* p = static_cast<unsigned char*>(allocateLarge(bytes));
            QCOMPARE(std::uintptr_t(p) % alignof(std::max_align_t), std::uintptr_t(0));
            // Up to kWholeHugePagesUpTo whole aligned pages; above, malloc's own block.
            if (bytes <= kWholeHugePagesUpTo)
                QCOMPARE(std::uintptr_t(p) % kHugePageBytes, std::uintptr_t(0));
            std::memset(p, 0xab, bytes);  // the whole size is writable
            QCOMPARE(int(p[bytes - 1]), 0xab);
            // The first whole huge page inside the buffer is marked ("hg" in VmFlags) wherever
            // the kernel offers them.
            const std::uintptr_t inside = (std::uintptr_t(p) + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
            QVERIFY(bytes <= kWholeHugePagesUpTo || inside + kHugePageBytes <= std::uintptr_t(p) + bytes);
            if (transparentHugePagesOffered()) {
                const std::string flags = mappingFlags(reinterpret_cast<const void*>(inside));
                QVERIFY2(!flags.empty(), "the buffer's mapping is in /proc/self/smaps");
                QVERIFY2(flags.find(" hg") != std::string::npos, flags.c_str());
            }
            releaseLarge(p);
        }
    }

    void hugePageChunksAreWholeAlignedPages()
    {
        for (std::size_t bytes : {std::size_t(1), kHugePageBytes, kHugePageBytes + 1}) {
            auto* p = static_cast<unsigned char*>(allocateHugePages(bytes));
            QCOMPARE(std::uintptr_t(p) % kHugePageBytes, std::uintptr_t(0));
            const std::size_t whole = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
            std::memset(p, 0xcd, whole);  // every page of the rounded size is the caller's
            if (transparentHugePagesOffered()) {
                const std::string flags = mappingFlags(p);
                QVERIFY2(flags.find(" hg") != std::string::npos, flags.c_str());
            }
            releaseLarge(p);
        }
    }

    void impossibleSizesThrow()
    {
        QVERIFY_THROWS_EXCEPTION(std::bad_alloc, allocateLarge(std::numeric_limits<std::size_t>::max()));
        QVERIFY_THROWS_EXCEPTION(std::bad_alloc, allocateLarge(std::numeric_limits<std::size_t>::max() - kHugePageBytes / 2));
        QVERIFY_THROWS_EXCEPTION(std::bad_alloc, allocateHugePages(std::numeric_limits<std::size_t>::max() - kHugePageBytes / 2));
        LargeBufferAllocator<double> allocator;
        QVERIFY_THROWS_EXCEPTION(std::bad_array_new_length, allocator.allocate(std::numeric_limits<std::size_t>::max() / 4));
    }

    void vectorsKeepTheirValues()
    {
        std::vector<std::int64_t, LargeBufferAllocator<std::int64_t>> values(1 << 18);  // 2 MiB
        for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = std::int64_t(i) * 3;
        auto copy = values;
        copy.push_back(-1);  // grows into a new buffer, copying what it held
        QCOMPARE(copy.size(), values.size() + 1);
        QCOMPARE(copy[123457], std::int64_t(123457) * 3);
        QCOMPARE(copy.back(), std::int64_t(-1));
        QVERIFY(std::equal(values.begin(), values.end(), copy.begin()));
    }
};

QTEST_GUILESS_MAIN(TestLargeBuffer)
#include "tst_largebuffer.moc"
