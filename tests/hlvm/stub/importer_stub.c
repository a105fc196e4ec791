// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for tests/importer/hl_importer.ko, used only by tests/hlvm/run:
 * it uses a symbol of the habanalabs stand-in, like the real importer uses
 * the exporter, so loading and unloading must happen in dependency order.
 */
#include <linux/module.h>

int hlvm_stub_ping(void);

static int __init hl_importer_stub_init(void)
{
	return hlvm_stub_ping();
}
module_init(hl_importer_stub_init);

static void __exit hl_importer_stub_exit(void)
{
}
module_exit(hl_importer_stub_exit);

MODULE_DESCRIPTION("hlvm self-test stand-in for hl_importer");
MODULE_LICENSE("GPL");
