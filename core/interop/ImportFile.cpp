#include "core/interop/ImportFile.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "core/base/BoundedFile.h"
#include "core/base/BoundedJson.h"
#include "core/base/PlanError.h"
#include "core/interop/HuggingFaceImport.h"
#include "core/interop/MegatronBridgeConfig.h"
#include "core/interop/MegatronImport.h"
#include "core/interop/TorchtitanConfig.h"

namespace trainplan {

namespace {

std::string baseName(std::string path)
{
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What to call the model a file describes: its name without the extension ("mixtral-8x7b.json"
// -> "mixtral-8x7b"); nothing for a bare config.json or standard input.
std::string modelNameOf(const std::string& name)
{
    std::string base = baseName(name);
    if (base == "config.json" || base == "-" || base == "standard input")
        return {};
    for (const char* extension : {".json", ".sh", ".bash", ".txt", ".args", ".toml", ".yaml", ".yml"}) {
        const std::string e = extension;
        if (base.size() > e.size() && base.compare(base.size() - e.size(), e.size(), e) == 0)
            return base.substr(0, base.size() - e.size());
    }
    return base;
}

bool hasYamlExtension(const std::string& name)
{
    for (const std::string e : {".yaml", ".yml"})
        if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0)
            return true;
    return false;
}

}  // namespace

ImportReport importText(const std::string& text, const std::string& name, const Plan& base)
{
    // Configs and launch scripts are UTF-8 text; other bytes would reach names and messages.
    if (!isValidUtf8(text))
        throw PlanError({PlanProblem{"", name + " is not UTF-8 text: neither a config.json nor a launch script"}});
    // A torchtitan TOML config: [training] or [parallelism] table headers (it may start with '[', like JSON).
    if (looksLikeTorchtitanConfig(text))
        return importTorchtitanConfig(text, base);
    // A Megatron-Bridge / NeMo override YAML: named so, or a top-level model:, train:, ddp: ... section.
    if (hasYamlExtension(name) || looksLikeMegatronBridgeConfig(text))
        return importMegatronBridgeConfig(text, base, modelNameOf(name));
    // JSON when it starts like JSON: a config with a syntax error is reported as one, not read as a script.
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
        const BoundedJsonResult parsed = tryParseJsonBounded(text, name);
        if (parsed.status != BoundedJsonResult::Status::Ok)
            throw PlanError({PlanProblem{parsed.path, parsed.message}});
        const nlohmann::json& doc = parsed.value;
        if (doc.is_object() && doc.contains("format"))
            throw PlanError({PlanProblem{"", name + " is already a TrainPlan plan (it has \"format\"): open it rather than import it"}});
        if (looksLikeHuggingFaceConfig(doc))
            return importHuggingFaceConfig(doc, base, modelNameOf(name));
        // An argument list as JSON: ["--num-layers", "32", ...].
        if (doc.is_array()) {
            std::string joined;
            for (const auto& item : doc) {
                if (!item.is_string())
                    throw PlanError({PlanProblem{"", name + ": an argument list must hold strings only"}});
                std::string word = item.get<std::string>();
                joined += "'";
                for (char c : word)
                    joined += c == '\'' ? std::string("'\\''") : std::string(1, c);
                joined += "' ";
            }
            if (looksLikeMegatronArguments(joined))
                return importMegatronArguments(joined, base, modelNameOf(name));
        }
        throw PlanError({PlanProblem{"", name + " is JSON but neither a Hugging Face config.json (no model_type, architectures or "
                                     "num_hidden_layers) nor a Megatron-LM argument list"}});
    }
    if (looksLikeMegatronArguments(text))
        return importMegatronArguments(text, base, modelNameOf(name));
    throw PlanError({PlanProblem{"", name + " is neither a Hugging Face config.json, a Megatron-LM launch script or argument list "
                                 "(no --num-layers, --hidden-size or parallelism flags), a torchtitan config (no [training] or "
                                 "[parallelism] table), nor a Megatron-Bridge YAML (no model:, train: or ddp: section)"}});
}

ImportReport importPath(const std::string& path, const Plan& base)
{
    struct stat info {};
    std::string file = path;
    if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
        file = path + (path.empty() || path.back() == '/' ? "" : "/") + "config.json";
        if (::stat(file.c_str(), &info) != 0)
            throw PlanError({PlanProblem{"", path + " is a folder without a config.json: point at a Hugging Face model folder or a file"}});
        return importText(readRegularFile(file), baseName(path), base);
    }
    return importText(readRegularFile(file), file, base);
}

}  // namespace trainplan
