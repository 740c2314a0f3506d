// A C++17 consumer of the installed library: built only with
// `pkg-config --cflags --libs nscd`. Exits 0 when every check holds.
#include <nscd/nscd.h>

#include <cstdio>
#include <memory>
#include <string>

namespace {

nscd_status unit_mass(void *, const double *, double *mass) {
    mass[0] = 2.0;
    return NSCD_OK;
}

struct system_deleter {
    void operator()(nscd_system *system) const { nscd_system_destroy(system); }
};
using system_ptr = std::unique_ptr<nscd_system, system_deleter>;

} // namespace

int main() {
    const std::string expected = std::to_string(NSCD_VERSION_MAJOR) + "." +
                                 std::to_string(NSCD_VERSION_MINOR) + "." +
                                 std::to_string(NSCD_VERSION_PATCH);
    if (expected != nscd_version_string() || nscd_version() != NSCD_VERSION) {
        std::fprintf(stderr, "version mismatch: library %s, header %s\n", nscd_version_string(),
                     expected.c_str());
        return 1;
    }
    const std::string status = nscd_status_string(NSCD_ERR_INVALID_ARGUMENT);
    if (status.empty() || status == nscd_status_string(NSCD_OK))
        return 1;

    nscd_system_desc desc{};
    if (nscd_system_desc_init(&desc, sizeof desc) != NSCD_OK)
        return 1;
    desc.n_dof = 1;
    desc.mass = unit_mass;
    nscd_system *raw = nullptr;
    if (nscd_system_create(&desc, &raw) != NSCD_OK)
        return 1;
    system_ptr system(raw);

    // A bad call must fail with a status and leave a message on the handle.
    const double q[1] = {0.0};
    if (nscd_system_set_state(system.get(), 0.0, q, nullptr) == NSCD_OK)
        return 1;

    std::printf("C++ consumer: nscd %s, \"%s\"\n", nscd_version_string(), status.c_str());
    return 0;
}
