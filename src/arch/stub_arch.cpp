// TEMPORARY: keeps tc_arch non-empty until the estimator lands.
namespace tenet_cost { int stub_arch_module = 0; }
