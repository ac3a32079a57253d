"""The tests' private Open vSwitch: the module the fabric bring-up uses (cheetah_adapters.ovs)."""

from cheetah_adapters.ovs import FabricSwitches, Switch, start_fabric, start_switch

__all__ = ["FabricSwitches", "Switch", "start_fabric", "start_switch"]
