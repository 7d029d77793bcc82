// Opening a path inside a directory tree as if that tree were "/": absolute symbolic links resolve
// against the tree, ".." stops at its top, so nothing outside the tree is ever opened. A recorded
// host tree (`--root DIR`) is read this way: a link in it to /etc/passwd names DIR/etc/passwd.
//
// openat2(2) with RESOLVE_IN_ROOT does the resolution in the kernel; where the kernel lacks it
// (ENOSYS, or a seccomp filter answering EPERM), a component-by-component walk with O_NOFOLLOW and
// readlinkat(2) does the same.
//
// Thread safety: the functions are reentrant; the descriptors returned belong to the caller.
#ifndef YARDSTICK_HOST_ROOTED_OPEN_H_
#define YARDSTICK_HOST_ROOTED_OPEN_H_

#include <string>
#include <string_view>

namespace ys::host {

enum class RootedResolver {
  kAuto,     // openat2 where the kernel has it, else the walk
  kOpenat2,  // openat2 only (ENOSYS where the kernel lacks it)
  kWalk,     // the walk only
};

// Opens `path` (root-relative; leading '/' optional; "" or "/" is the root itself) under the
// directory `root_fd` with open(2) `flags` (O_CLOEXEC is added). O_NOFOLLOW applies to the last
// component only, as for open(2); with O_PATH it opens the link itself. Returns the descriptor, or
// -errno (ELOOP past 40 links).
int OpenInRoot(int root_fd, std::string_view path, int flags,
               RootedResolver how = RootedResolver::kAuto);

// The canonical root-relative form of `path` ("/sys/devices/..."), following links inside the
// root; `*err` gets errno when it cannot be resolved (a component is absent, a loop).
std::string CanonicalInRoot(int root_fd, std::string_view path, int* err);

// True when this kernel resolves with openat2 (probed once).
bool Openat2Available();

}  // namespace ys::host

#endif  // YARDSTICK_HOST_ROOTED_OPEN_H_
