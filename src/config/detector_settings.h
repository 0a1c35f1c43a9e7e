#pragma once

#include <concepts>
#include <memory>
#include <string_view>
#include <vector>

#include "config/field.h"

namespace dagadvisor::config {

/// What a detector's settings type provides: the name of its section under `detectors:`, an
/// `enabled` switch, defaults in its member initialisers, equality, and its field rows, whose
/// paths are keys within the section. The detector declares it beside itself
/// (analysis/detectors/<kind>.h); the config stage loads, validates, renders and compares it
/// through the rows without knowing the type.
template <typename S>
concept DetectorSettingsType = std::default_initializable<S> && std::equality_comparable<S> &&
    std::copy_constructible<S> && requires(S settings) {
  { S::kSection } -> std::convertible_to<std::string_view>;
  { settings.enabled } -> std::convertible_to<bool>;
  { settings.fields() } -> std::same_as<std::vector<Field>>;
};

/// The `detectors:` section: one settings object per detector kind, in the order they were
/// added (the kind list's). A section never added reads as its defaults, so a default Config
/// serves every detector; loading and rendering walk only the added sections, which is why
/// files load onto advice::defaultConfig(), where every kind is added.
class DetectorSettings {
 public:
  DetectorSettings() = default;
  DetectorSettings(const DetectorSettings& other);
  DetectorSettings& operator=(const DetectorSettings& other);
  DetectorSettings(DetectorSettings&&) noexcept = default;
  DetectorSettings& operator=(DetectorSettings&&) noexcept = default;
  ~DetectorSettings() = default;

  /// `S`'s settings, added at their defaults first if absent.
  template <DetectorSettingsType S>
  S& get() {
    if (const S* found = find<S>()) {
      return const_cast<S&>(*found);  // this object owns it, non-const
    }
    sections_.push_back(std::make_unique<Typed<S>>());
    return static_cast<Typed<S>&>(*sections_.back()).value;
  }

  /// `S`'s settings, or its defaults when the section was never added.
  template <DetectorSettingsType S>
  const S& get() const {
    static const S kDefaults{};
    const S* found = find<S>();
    return found != nullptr ? *found : kDefaults;
  }

  /// Every added section's rows, prefixed "detectors.<section>.", pointing into this object.
  std::vector<Field> fields();

  /// Equal when every section is, an absent one counting as its defaults.
  bool operator==(const DetectorSettings& other) const;

 private:
  struct Section {
    virtual ~Section() = default;
    virtual std::string_view name() const = 0;
    virtual std::unique_ptr<Section> clone() const = 0;
    virtual std::vector<Field> fields() = 0;
    /// Against `other` of the same name, or against the defaults when `other` is null.
    virtual bool equals(const Section* other) const = 0;
  };

  template <DetectorSettingsType S>
  struct Typed final : Section {
    S value;
    std::string_view name() const override { return S::kSection; }
    std::unique_ptr<Section> clone() const override { return std::make_unique<Typed>(*this); }
    std::vector<Field> fields() override { return value.fields(); }
    bool equals(const Section* other) const override {
      return value == (other != nullptr ? static_cast<const Typed&>(*other).value : S{});
    }
  };

  template <DetectorSettingsType S>
  const S* find() const {
    const Section* section = byName(S::kSection);
    return section != nullptr ? &static_cast<const Typed<S>&>(*section).value : nullptr;
  }

  const Section* byName(std::string_view name) const;

  std::vector<std::unique_ptr<Section>> sections_;
};

}  // namespace dagadvisor::config
