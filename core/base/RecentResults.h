#pragma once

namespace trainplan {

// The last few results of a pure function, by its inputs. The layout search asks the step-time
// model for the same few shapes again and again as it walks layouts that share them (every PP,
// DP, ZeRO and schedule choice over one TP and micro-batch); keep one per thread
// (`static thread_local`), as it is not synchronised.
template <class Key, class Value, int Slots>
class RecentResults {
public:
    // The value kept for `key`, or compute() kept over the oldest entry.
    template <class Compute>
    const Value& get(const Key& key, Compute&& compute)
    {
        if (filled_ > 0 && keys_[last_] == key)
            return values_[last_];
        for (int i = 0; i < filled_; ++i)
            if (i != last_ && keys_[i] == key) {
                last_ = i;
                return values_[i];
            }
        const int slot = next_;
        next_ = (next_ + 1) % Slots;
        if (filled_ < Slots)
            ++filled_;
        values_[slot] = compute();
        keys_[slot] = key;
        last_ = slot;
        return values_[slot];
    }

private:
    Key keys_[Slots]{};
    Value values_[Slots]{};
    int filled_ = 0, next_ = 0, last_ = 0;
};

}  // namespace trainplan
