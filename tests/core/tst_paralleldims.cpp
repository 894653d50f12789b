// The parallel dimensions are one table (plan/ParallelDims.h), and everything that lists them
// loops over it: the table is complete and consistent with the plan file; one switch maps a
// dimension to its field in every struct that names them; every text and JSON output names
// every dimension of the table, in display order; the search sizes every dimension and trades
// only the dimensions that hold the same weights. Each expectation is built from the table, so
// a dimension added to the table and missed by an output fails here.
#include <QtTest>

#include <algorithm>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "../TestPlans.h"
#include "TestSupport.h"
#include "core/analysis/Analysis.h"
#include "core/analysis/LayoutRationale.h"
#include "core/plan/ParallelDims.h"
#include "core/plan/PlanFields.h"
#include "core/planfile/WorkedExamples.h"
#include "core/rankmap/RankMap.h"
#include "core/search/LayoutSearch.h"
#include "core/text/Derivation.h"
#include "core/text/TextReport.h"

using namespace trainplan;
using testplans::distinctSizesPlan;

namespace {

// The dimensions in display order, read from the rows' displayOrder (not parallelDimsForDisplay).
std::vector<ParallelDim> displayed()
{
    std::vector<const ParallelDimInfo*> rows;
    for (const auto& info : kParallelDimInfo)
        rows.push_back(&info);
    std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->displayOrder < b->displayOrder; });
    std::vector<ParallelDim> out;
    for (auto* r : rows)
        out.push_back(r->dim);
    return out;
}

// "TP 2<sep>PP 4<sep>DP 8<sep>CP 16" for the table's dimensions and the given sizes.
template <typename Sizes>
std::string expectedSizes(const Sizes& s, const std::string& separator)
{
    std::string out;
    for (ParallelDim d : displayed())
        out += (out.empty() ? "" : separator) + std::string(parallelDimInfo(d).label) + " " + std::to_string(s.size(d));
    return out;
}

std::string expectedLabels(const std::string& separator)
{
    std::string out;
    for (ParallelDim d : displayed())
        out += (out.empty() ? "" : separator) + std::string(parallelDimInfo(d).label);
    return out;
}

}  // namespace

class TestParallelDims : public QObject {
    Q_OBJECT

private slots:
    void tableIsCompleteAndConsistent();
    void oneSwitchMapsEachDimensionToItsField();
    void textOutputsNameEveryDimensionInDisplayOrder();
    void jsonLayoutsHaveAKeyPerDimension();
    void searchSizesEveryDimension();
    void onlyWeightSharingDimensionsTradeSizes();
    void simplicityCountsEachDimensionByWhatItSplits();
};

void TestParallelDims::tableIsCompleteAndConsistent()
{
    QCOMPARE(kParallelDimInfo.size(), kParallelDimCount);
    std::set<int> orders;
    std::set<std::string_view> keys, labels;
    int batch = 0;
    for (size_t i = 0; i < kParallelDimCount; ++i) {
        const auto& info = kParallelDimInfo[i];
        QCOMPARE(info.dim, kParallelDims[i]);  // rows are indexed by the enum
        QCOMPARE(parallelDimIndex(info.dim), i);
        orders.insert(info.displayOrder);
        keys.insert(info.key);
        labels.insert(info.label);
        batch += info.splits == DimSplits::Batch;
        // The plan file has the dimension under its key, so the reader and writer know it.
        QVERIFY2(findPlanField("layout." + std::string(info.key)), info.key.data());
    }
    QCOMPARE(orders.size(), kParallelDimCount);
    QCOMPARE(*orders.begin(), 0);
    QCOMPARE(*orders.rbegin(), int(kParallelDimCount) - 1);
    QCOMPARE(keys.size(), kParallelDimCount);
    QCOMPARE(labels.size(), kParallelDimCount);
    QCOMPARE(batch, 1);  // the search gives it what the others leave
    const auto shown = parallelDimsForDisplay();
    QCOMPARE(std::vector<ParallelDim>(shown.begin(), shown.end()), displayed());
}

void TestParallelDims::oneSwitchMapsEachDimensionToItsField()
{
    LayoutSpec layout;
    SearchLayout search;
    RankCoords coords;
    for (size_t i = 0; i < kParallelDimCount; ++i) {
        layout.size(kParallelDims[i]) = int(100 + i);
        search.size(kParallelDims[i]) = int(200 + i);
        coords[kParallelDims[i]] = int(300 + i);
    }
    // Each write reached its own field: every value reads back, none overwrote another.
    long long product = 1;
    for (size_t i = 0; i < kParallelDimCount; ++i) {
        QCOMPARE(layout.size(kParallelDims[i]), int(100 + i));
        QCOMPARE(search.size(kParallelDims[i]), int(200 + i));
        QCOMPARE(coords[kParallelDims[i]], int(300 + i));
        product *= 100 + i;
    }
    QCOMPARE(layout.gpus(), product);
    // The search layout and the plan carry the same sizes both ways.
    Plan plan = distinctSizesPlan();
    const SearchLayout s = searchLayoutOf(plan);
    const Plan back = withSearchLayout(defaultPlan(), s);
    for (ParallelDim d : kParallelDims) {
        QCOMPARE(s.size(d), plan.layout.size(d));
        QCOMPARE(back.layout.size(d), plan.layout.size(d));
    }
}

void TestParallelDims::textOutputsNameEveryDimensionInDisplayOrder()
{
    const Plan plan = distinctSizesPlan();
    const Analysis a = analyse(plan);
    QCOMPARE(parallelSizesText(plan.layout), expectedSizes(plan.layout, " × "));
    QCOMPARE(parallelLabelsText(" x "), expectedLabels(" x "));

    // The text report's plan line.
    const std::string report = estimateToText(a, false);
    QVERIFY2(report.find("| " + expectedSizes(plan.layout, " ") + " |") != std::string::npos, report.c_str());
    // The layout rationale's name of a layout.
    QVERIFY(describeLayout(searchLayoutOf(plan)).starts_with(expectedSizes(plan.layout, " × ") + ","));
    // The derivation's check that the layout uses every GPU.
    const auto sections = derive(a);
    const DerivationStep* product = findStep(sections, "checks.layout_product");
    QVERIFY(product);
    QCOMPARE(product->formula, expectedLabels(" × ") + " = GPUs");
    std::string values;
    for (ParallelDim d : displayed())
        values += (values.empty() ? "" : " × ") + std::to_string(plan.layout.size(d));
    QVERIFY2(product->substituted.starts_with(values + " = "), product->substituted.c_str());
    // The red flag when the layout and the cluster disagree.
    Plan mismatched = plan;
    mismatched.cluster.gpus *= 2;
    const Estimate e = estimate(mismatched);
    const auto flag =
        std::find_if(e.warnings.begin(), e.warnings.end(), [](const Warning& w) { return w.code == WarningCode::LayoutProductMismatch; });
    QVERIFY(flag != e.warnings.end());
    QVERIFY2(describe(*flag).starts_with(expectedLabels(" x ") + " = "), describe(*flag).c_str());
    // The search table's header and a row: the labels, then the sizes, in the same columns.
    SearchResult r;
    SearchRow row;
    row.layout = searchLayoutOf(plan);
    r.rows.push_back(row);
    r.top = 1;
    const std::string table = searchToText(r);
    std::string header = "\n", line = "\n";
    for (ParallelDim d : displayed()) {
        header += std::string(parallelDimInfo(d).label) + "\\s+";
        line += std::to_string(plan.layout.size(d)) + "\\s+";
    }
    QVERIFY2(std::regex_search(table, std::regex(header + "v\\s+b\\s")), table.c_str());
    QVERIFY2(std::regex_search(table, std::regex(line + std::to_string(row.layout.virtualStages) + "\\s")), table.c_str());
}

void TestParallelDims::jsonLayoutsHaveAKeyPerDimension()
{
    const Plan plan = distinctSizesPlan();
    SearchResult r;
    SearchRow row;
    row.layout = searchLayoutOf(plan);
    r.rows.push_back(row);
    r.top = 1;
    const nlohmann::json layout = searchToJson(r).at("search").at("results").at(0).at("layout");
    for (const auto& info : kParallelDimInfo)
        QCOMPARE(layout.at(std::string(info.key)).get<int>(), plan.layout.size(info.dim));
    // The estimate's JSON carries the plan, so every dimension under its plan-file key.
    const nlohmann::json estimate = testsupport::estimateJsonFor(plan);
    for (const auto& info : kParallelDimInfo)
        QCOMPARE(estimate.at("plan").at("layout").at(std::string(info.key)).get<int>(), plan.layout.size(info.dim));
}

void TestParallelDims::searchSizesEveryDimension()
{
    // Worked example A's model on 256 GPUs with a long sequence, so that every dimension has
    // more than one size that fits.
    Plan plan = defaultPlan();
    plan.cluster.gpus = 256;
    plan.model.sequenceLength = 16384;
    plan.training.globalBatchSequences = 256;
    SearchOptions options;
    options.top = 1'000'000;
    const SearchResult r = searchLayouts(plan, options);
    QVERIFY(r.rows.size() > 100);
    std::map<ParallelDim, std::set<int>> seen;
    for (const SearchRow& row : r.rows) {
        long long product = 1;
        for (ParallelDim d : kParallelDims) {
            seen[d].insert(row.layout.size(d));
            product *= row.layout.size(d);
        }
        QCOMPARE(product, (long long)plan.cluster.gpus);
    }
    for (ParallelDim d : kParallelDims)
        QVERIFY2(seen[d].size() > 1, parallelDimInfo(d).label.data());
}

void TestParallelDims::onlyWeightSharingDimensionsTradeSizes()
{
    SearchRow a;
    a.layout = searchLayoutOf(distinctSizesPlan());
    a.stepSeconds = a.totalSeconds = a.memoryBytes = a.mfu = a.gpuHours = 1.0;
    for (ParallelDim from : kParallelDims)
        for (ParallelDim to : kParallelDims) {
            if (from == to)
                continue;
            // Move a factor of two from one dimension to another: the product stays.
            SearchRow b = a;
            b.layout.size(from) /= 2;
            b.layout.size(to) *= 2;
            const bool trade = sharesWeights(from) && sharesWeights(to);
            QVERIFY2(
                sameFigures(a, b) == trade, (std::string(parallelDimLabel(from)) + " to " + std::string(parallelDimLabel(to))).c_str());
        }
    // The weight-sharing dimensions are the ones the gradients reduce over (DP x CP).
    const Plan plan = distinctSizesPlan();
    const RankMap map(plan);
    QCOMPARE((long long)map.gradientGroupRanks(0).size(), parallelSizeProduct(plan.layout, sharesWeights));
    QCOMPARE((long long)map.replicaRanks(0).size(), parallelSizeProduct(plan.layout, splitsReplica));
}

void TestParallelDims::simplicityCountsEachDimensionByWhatItSplits()
{
    SearchLayout s;
    for (ParallelDim d : kParallelDims)
        s.size(d) = 1;
    QCOMPARE(simplicityKey(s, 8)[0], 0);
    // Each dimension alone: heads count once they leave the node, the sequence and the layers
    // as soon as they are split, replicas never; the fourth key is one replica's ranks.
    for (ParallelDim d : kParallelDims) {
        SearchLayout one = s;
        one.size(d) = 16;
        const auto key = simplicityKey(one, 8);
        const DimSplits splits = parallelDimInfo(d).splits;
        QCOMPARE(key[0], splits == DimSplits::Batch ? 0 : 1);
        QCOMPARE(key[3], splitsReplica(d) ? 16 : 1);
        one.size(d) = 4;
        QCOMPARE(simplicityKey(one, 8)[0], splits == DimSplits::Sequence || splits == DimSplits::Layers ? 1 : 0);
    }
}

QTEST_MAIN(TestParallelDims)
#include "tst_paralleldims.moc"
