// What kind of product a GPU is, told from what NVML and nvidia-smi print about it: its class
// (data centre, workstation, GeForce), its form factor (SXM module or PCIe card) and how many
// NVLinks it has by design. The GPU units judge a GPU as the product it is: a PCIe card with no
// NVLink bridge lists its links as inactive, an H100 PCIe bridge pair uses 12 of the 18 links
// NVML lists, and a GeForce card has no ECC to turn on. A product this table does not know is
// judged as before (every listed link, the site's defaults).
//
// Sources of the link counts (per GPU, NVLink 2 to 5 all carry 50 GB/s a link in both directions
// together, NVLink 5 100 GB/s):
//   NVIDIA V100 datasheet: SXM2 NVLink 300 GB/s (6 links); the PCIe card has no NVLink.
//   NVIDIA A100 datasheet: SXM4 NVLink 600 GB/s (12 links); A100 PCIe "NVIDIA NVLink Bridge for
//     2 GPUs: 600 GB/s" (three bridges, 12 links).
//   NVIDIA H100 datasheet: SXM NVLink 900 GB/s (18 links); H100 PCIe and H100 NVL NVLink
//     600 GB/s through the bridge (12 links; NVML lists 18, 6 are never connected).
//   NVIDIA H200 datasheet: SXM NVLink 900 GB/s (18); H200 NVL "2- or 4-way NVLink bridge:
//     900 GB/s" (18).
//   NVIDIA Blackwell (B200, GB200, B300, GB300) and GH200: 18 NVLinks a GPU.
#ifndef YARDSTICK_GPU_GPU_PRODUCT_H_
#define YARDSTICK_GPU_GPU_PRODUCT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ys::gpu {

enum class ProductClass { kDataCentre, kWorkstation, kGeForce };
enum class FormFactor { kUnknown, kSxm, kPcie };

struct GpuProduct {
  ProductClass product_class = ProductClass::kDataCentre;
  FormFactor form = FormFactor::kUnknown;
  // SXM: the links of the module, all connected on its baseboard. PCIe: the links an NVLink
  // bridge connects (0: the card takes no bridge). nullopt: not known for this product.
  std::optional<int> nvlinks;
  std::string family;  // "H100 PCIe", "A100 SXM4"; empty when the table does not know it
  std::string basis;   // how it was told: "name \"NVIDIA H100 PCIe\"", "... default power 700 W"
};

// The product of a GPU named `name` (NVML's nvmlDeviceGetName, nvidia-smi's Product Name), with
// its default power limit in watts where known (tells an "NVIDIA H100" SXM module, 700 W, from a
// PCIe card).
GpuProduct IdentifyGpuProduct(std::string_view name,
                              std::optional<uint32_t> default_power_limit_w = std::nullopt);

const char* ProductClassName(ProductClass c);  // "data centre", "workstation", "GeForce"
const char* FormFactorName(FormFactor f);      // "SXM", "PCIe", "unknown form factor"

// How many active NVLinks a GPU must show.
struct NvlinkExpectation {
  enum class Kind {
    kEveryListed,  // every link NVML or nvidia-smi lists (a product this table does not know)
    kCount,        // at least `count` (the site's value, or an SXM module's links)
    kBridge,       // a PCIe card: none (no bridge installed) or at least `count` (a bridge)
    kAny,          // a PCIe card whose bridge is unknown, or one with no NVLink: any number
  };
  Kind kind = Kind::kEveryListed;
  int count = 0;
  std::string basis;  // "H100 PCIe: an NVLink bridge connects 12 links", "site: 18"
};
NvlinkExpectation ExpectNvlinks(const GpuProduct& p, std::optional<int> site_links_up);

// What `active` of the `known` links (those whose state was read) mean against `e`: nullopt when
// fine, else the shortfall in words ("8 of the 12 links an NVLink bridge connects are active").
// `unknown` links of the GPU have no state (unreadable, or not printed in an abridged copy): a
// link not read is never counted as down, so a GPU is short only when its active links and its
// unknown ones together fall short.
std::optional<std::string> NvlinkShortfall(const NvlinkExpectation& e, int known, int active,
                                           int unknown);

// One line for a note when the links are fine: "12 of 18 links active (H100 PCIe: ...)".
std::string DescribeNvlinkState(const NvlinkExpectation& e, int listed, int active);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_GPU_PRODUCT_H_
