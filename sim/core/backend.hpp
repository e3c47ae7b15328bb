#pragma once
// The GPU programming interface a runtime's kernels are compiled for. The same runtime reaches very
// different fractions of a device's matrix peak on different backends: llama.cpp's prompt
// processing on Apple's Metal reaches about 65% of the listed FP16 rate, on CUDA about 25% of the
// tensor-core rate, on ROCm and Vulkan on RDNA 3.5 10-20% (docs/model.md, "Backends").

#include <array>
#include <optional>
#include <string_view>

namespace decodesim::core {

enum class Backend { cuda, rocm, metal, vulkan, sycl, other };

struct BackendInfo {
    Backend backend;
    std::string_view name;
    std::string_view description;
};

inline constexpr std::array kBackends{
    BackendInfo{Backend::cuda, "cuda", "NVIDIA CUDA"},
    BackendInfo{Backend::rocm, "rocm", "AMD ROCm/HIP"},
    BackendInfo{Backend::metal, "metal", "Apple Metal"},
    BackendInfo{Backend::vulkan, "vulkan", "Vulkan compute (any vendor)"},
    BackendInfo{Backend::sycl, "sycl", "Intel oneAPI SYCL"},
    BackendInfo{Backend::other, "other", "a vendor's own stack (Gaudi SynapseAI, TPU XLA, ...)"},
};

constexpr std::string_view backend_name(Backend backend) { return kBackends[static_cast<std::size_t>(backend)].name; }

// The backend named `name` ("cuda", "rocm", ...); nullopt when there is none.
std::optional<Backend> backend_of(std::string_view name);

// A device vendor as a hardware profile names it (`vendor:`), and the backend its devices run by
// default: the vendor's own interface. A profile may state another (`backend:`, Intel's Gaudi
// runs SynapseAI: other). Vulkan is never a default: it is chosen.
struct VendorInfo {
    std::string_view name;
    Backend native_backend;
};

inline constexpr std::array kVendors{
    VendorInfo{"nvidia", Backend::cuda},  VendorInfo{"amd", Backend::rocm},     VendorInfo{"apple", Backend::metal},
    VendorInfo{"intel", Backend::sycl},   VendorInfo{"google", Backend::other}, VendorInfo{"other", Backend::other},
};

// Whether kernels compiled for `backend` run on a device of `vendor` whose own interface is
// `native`: its own, or Vulkan on a GPU vendor's GPU (llama.cpp's Vulkan backend runs on NVIDIA,
// AMD, Intel and, through MoltenVK, Apple GPUs; not on an accelerator with a stack of its own, as
// Gaudi); a vendor decodesim does not name ("other") may run any. CUDA on an Apple GPU or Metal on
// an NVIDIA one is no deployment.
constexpr bool runs_on(Backend backend, std::string_view vendor, Backend native) {
    if (backend == native || vendor == "other") return true;
    const bool gpu_vendor = vendor == "nvidia" || vendor == "amd" || vendor == "apple" || vendor == "intel";
    return backend == Backend::vulkan && gpu_vendor && native != Backend::other;
}

}  // namespace decodesim::core
