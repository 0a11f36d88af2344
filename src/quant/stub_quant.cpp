// TEMPORARY: keeps tc_quant non-empty until the estimator lands.
namespace tenet_cost { int stub_quant_module = 0; }
