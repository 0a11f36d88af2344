// TEMPORARY: keeps tc_relation non-empty until the relation engine lands.
namespace tenet_cost::relation {
int stub_relation_module = 0;
}
