#pragma once
// A device as its datasheet describes it: plain data, loaded by hardware_loader.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/datatype.hpp"
#include "core/enum_names.hpp"
#include "core/backend.hpp"
#include "core/memory_family.hpp"
#include "core/units.hpp"

namespace decodesim::profiles {

// The scale-up link: what a device reaches at full link speed (NVLink/NVSwitch, XGMI/Infinity
// Fabric, TPU ICI, or PCIe between boards without a bridge). A parallel group larger than
// `domain` devices crosses into the scale-out network (docs/model.md, "Topology").
struct Interconnect {
    core::Bandwidth bandwidth;  // per device, per direction
    core::Seconds latency;      // per message hop
    std::string kind;           // "NVLink 4", "XGMI", "ICI", "PCIe 5.0 x16", ... (for display)
    int domain = 8;             // devices in one scale-up domain (8: an HGX/OAM board; 72: an NVL72 rack)
    bool domain_stated = false; // false: the profile gave no domain and the default of 8 was taken
    std::string source;         // where the link figures come from (else the profile's source)
};

// The scale-out network between scale-up domains (InfiniBand, RoCE, Ethernet, DCN): one NIC's
// worth per device, as HGX nodes pair each GPU with its own NIC.
struct ScaleOut {
    core::Bandwidth bandwidth;  // per device, per direction
    core::Seconds latency;      // per message hop
    std::string kind;           // "InfiniBand NDR 400G", "RoCE 400G", ...
    std::string source;
};

// The host link: device to CPU memory, for KV-cache offload (PCIe, NVLink-C2C).
struct HostLink {
    core::Bandwidth bandwidth;  // per direction
    std::string kind;
    std::string source;
};

// Optional per-device overrides of the engine's default efficiency model (docs/model.md).
struct EfficiencyOverrides {
    std::optional<double> memory_bandwidth;       // fraction of peak, (0, 1]
    std::optional<double> compute;                // fraction of peak, (0, 1]
    std::optional<core::Seconds> kernel_overhead; // fixed time per kernel
};

// How a sustained clock was obtained: a published measurement under long load, the vendor's base
// clock (what the vendor guarantees under its board power; conservative), or a vendor statement.
enum class ClockBasis { measured, base_clock, vendor };

// What a device holds under long dense load at its default board power, against the clock its
// listed peaks are quoted at (docs/clocks.md).
struct SustainedClocks {
    core::Hertz peak;       // the clock the listed compute peaks assume
    core::Hertz sustained;  // dense matrix work held for minutes; may exceed `peak` (GPU Boost)
    ClockBasis basis = ClockBasis::measured;
    std::optional<core::Bandwidth> memory_bandwidth;  // only where the memory clock drops under load
    std::string source;
};

// The board power an operator may set (nvidia-smi -pl, amd-smi power cap, configurable TDP).
struct PowerLimitRange {
    core::Watts min;
    core::Watts max;
    std::string source;
};

// A named vendor power mode (Jetson nvpmodel) with the share of the listed peaks and the memory
// bandwidth it allows.
struct PowerMode {
    std::string name;
    core::Watts power;
    double compute_fraction = 1.0;  // of the listed peaks, (0, 1]
    core::Bandwidth memory_bandwidth;
};

// The highest price per device-hour accepted, in a profile and on the command line alike: far above
// any rental (an 8-GPU B200 node rents for under USD 100 an hour), so a larger value is a typo.
inline constexpr double kMaxPricePerHour = 10000.0;
// The most dies a package may state: Apple's Ultra joins two; beyond 8 is a typo.
inline constexpr std::int64_t kMaxDies = 8;
// The most compute units (SMs) a profile may state: the largest GPUs have under 200; beyond 4096 is a typo.
inline constexpr std::int64_t kMaxComputeUnits = 4096;
// The lowest: a tenth of a cent an hour; below it a price is a typo (1e-300 gave USD 2e-302 per million tokens).
inline constexpr double kMinPricePerHour = 0.001;

// Where a device is bought and run, which decides whether `plan` considers it by default
// (docs/decisions.md, "Which devices plan considers"): datacenter parts sold in servers or rented
// by clouds; workstation boards and desktops; consumer graphics cards, laptops and mini PCs;
// edge modules. `unstated` (a user's profile without the key) is considered like a datacenter part.
enum class DeviceSegment { datacenter, workstation, consumer, edge, unstated };
inline constexpr std::array<core::NamedValue<DeviceSegment>, 5> kDeviceSegmentNames{
    {{DeviceSegment::datacenter, "datacenter"},
     {DeviceSegment::workstation, "workstation"},
     {DeviceSegment::consumer, "consumer"},
     {DeviceSegment::edge, "edge"},
     {DeviceSegment::unstated, "unstated"}}};
// The segments a profile or `plan --segments` may name: every one but `unstated`, which is what a
// profile without the key gets.
inline constexpr std::string_view kStatedSegments = "datacenter workstation consumer edge";
constexpr std::optional<DeviceSegment> stated_segment(std::string_view name) {
    for (const auto& row : kDeviceSegmentNames) {
        if (row.name == name && row.value != DeviceSegment::unstated) return row.value;
    }
    return std::nullopt;
}

// What a price per device-hour is (docs/decisions.md, "Prices with their basis"): a cloud's
// on-demand rate; a purchase price amortized over three years with its board's power at USD 0.15
// a kWh (the method of docs/evidence/prices.md); another device's price standing in where none was
// found (a proxy, which every output marks); or, for a price given with --price/--prices or a
// user's profile without the key, unstated.
enum class PriceBasis { cloud, purchase, proxy, unstated };

// What a bought device cost (`purchase:`), for a total cost of ownership (serving/ownership_cost.hpp).
struct Purchase {
    double price_usd = 0.0;    // as bought: the list price or MSRP
    bool covers_host = false;  // true: a whole machine (a Mac, a DGX Spark); false: a board that needs a host
    std::string source;
};
// price_basis purchase means price_per_hour is the purchase price spread over kPurchaseYears plus
// the board's power at kPurchaseUsdPerKwh: the loader checks a profile's two figures against it.
inline constexpr double kPurchaseYears = 3.0;
inline constexpr double kPurchaseUsdPerKwh = 0.15;
inline constexpr double kMaxPurchaseUsd = 1e8;
inline constexpr std::array<core::NamedValue<PriceBasis>, 4> kPriceBasisNames{
    {{PriceBasis::cloud, "cloud"}, {PriceBasis::purchase, "purchase"}, {PriceBasis::proxy, "proxy"},
     {PriceBasis::unstated, "unstated"}}};

struct HardwareProfile {
    std::string id;              // file stem, e.g. "h100-sxm"

    // "nvidia-hopper", "apple-m3": the vendor and the generation.
    std::string family() const { return vendor + "-" + architecture; }
    std::string name;
    std::string source;
    std::string memory_type;     // "HBM3", "GDDR6X", "LPDDR5", ... (for display)
    core::MemoryFamily memory_family = core::MemoryFamily::hbm;  // resolved from memory_type by the loader
    std::string vendor;          // "nvidia", "amd", "apple", "intel", "google" (core::kVendors)
    // The chip generation ("hopper", "rdna", "m3", "tpu-v5"): with the vendor, the hardware family
    // that `accuracy --held-out` leaves out at once (family()).
    std::string architecture;
    DeviceSegment segment = DeviceSegment::unstated;  // `segment:`
    core::Backend native_backend = core::Backend::other;  // `backend:`, else the vendor's (core::kVendors)
    core::Bytes memory_capacity;
    core::Bandwidth memory_bandwidth;
    // Dies in the package that each carry their own memory controllers and GPU cores, joined by a
    // die-to-die bridge that every kernel spans (Apple's Ultra: two Max dies over UltraFusion).
    // Each kernel then starts and finishes on both dies, which a runtime pays for per kernel
    // (RuntimeFactors::cross_die_kernel_overhead, docs/model.md "Multi-die packages").
    int dies = 1;
    // Streaming multiprocessors (NVIDIA SMs): the units that issue a kernel's instructions. Only
    // needed where a kernel is bound by instruction issue rather than by the tensor-core peak
    // (llama.cpp's quantized matmuls on CUDA, engine::kernel_matmul_peak); absent elsewhere.
    std::optional<int> compute_units;
    // Dense peak per datatype, indexed by core::Datatype; 0 where the device lists none.
    std::array<core::FlopRate, core::kAllDatatypes.size()> peak_ops_per_s{};
    std::optional<Interconnect> interconnect;
    std::optional<ScaleOut> scale_out;
    std::optional<HostLink> host_link;
    std::optional<core::Watts> power;
    std::optional<double> price_per_hour;  // USD per device-hour, in (0, kMaxPricePerHour]
    PriceBasis price_basis = PriceBasis::unstated;  // `price_basis:`
    std::optional<Purchase> purchase;               // `purchase:`
    EfficiencyOverrides efficiency;
    std::optional<SustainedClocks> clocks;
    std::optional<PowerLimitRange> power_limit;
    std::vector<PowerMode> power_modes;  // ascending power
    std::string power_modes_source;

    core::FlopRate listed_peak(core::Datatype datatype) const {
        return peak_ops_per_s[static_cast<std::size_t>(datatype)];
    }
};

}  // namespace decodesim::profiles
