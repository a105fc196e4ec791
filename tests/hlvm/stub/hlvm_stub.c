// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for habanalabs.ko, used only by tests/hlvm/run to exercise
 * hlvm's load, bind and unload steps without the real driver: a PCI driver
 * named "habanalabs" that matches nothing by id (hlvm binds it through
 * driver_override) and whose failures are chosen by module parameters.
 */
#include <linux/module.h>
#include <linux/pci.h>

static bool fail_probe;
module_param(fail_probe, bool, 0444);
MODULE_PARM_DESC(fail_probe, "Fail every probe with -ENODEV (default: false)");

static bool hold_module;
module_param(hold_module, bool, 0444);
MODULE_PARM_DESC(hold_module, "Take a module reference at probe and never drop it, so rmmod fails (default: false)");

/* Used by the importer stand-in, so that it depends on this module. */
int hlvm_stub_ping(void);
int hlvm_stub_ping(void)
{
	return 0;
}
EXPORT_SYMBOL_GPL(hlvm_stub_ping);

static bool leak_at_probe;
module_param(leak_at_probe, bool, 0444);
MODULE_PARM_DESC(leak_at_probe, "Leak 64 bytes per probe, for kmemleak on debug kernels (default: false)");

static int hlvm_stub_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int rc;

	if (fail_probe)
		return -ENODEV;
	rc = pcim_enable_device(pdev);
	if (rc)
		return rc;
	if (hold_module)
		__module_get(THIS_MODULE);
	if (leak_at_probe) {
		void *leak = kmalloc(64, GFP_KERNEL);

		if (leak)
			memset(leak, 0x5a, 64);
	}
	dev_info(&pdev->dev, "hlvm stub bound, BAR2 %pR\n", &pdev->resource[2]);
	return 0;
}

static const struct pci_device_id hlvm_stub_ids[] = {
	{ }	/* none: bound only through driver_override */
};
MODULE_DEVICE_TABLE(pci, hlvm_stub_ids);

static struct pci_driver hlvm_stub_driver = {
	.name = "habanalabs",
	.id_table = hlvm_stub_ids,
	.probe = hlvm_stub_probe,
};
module_pci_driver(hlvm_stub_driver);

MODULE_DESCRIPTION("hlvm self-test stand-in for habanalabs");
MODULE_LICENSE("GPL");
