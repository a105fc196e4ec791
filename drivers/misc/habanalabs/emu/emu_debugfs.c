// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: debugfs register access as upstream's (asic=gaudi only):
 * addr (the device address, hex), data32 and data64 (read: "0x%08x\n" /
 * "0x%016llx\n"; write: a hex value) in the device's debugfs directory.
 * The ranges the emulator models:
 *   - the sync manager's registers (its E_N and W_S blocks) and the
 *     queue managers' fence counters, message bases and arbiter registers
 *     (emu_sync.c), 32-bit each; a 64-bit access is two 32-bit ones, low
 *     first;
 *   - the SRAM [HL_EMU_GAUDI_SRAM_BASE, + HL_EMU_GAUDI_SRAM_SIZE);
 *   - the user DRAM [dram_user_base_address, + dram_user_size), physically.
 * Anything else, also an access that crosses the end of a range, the
 * driver's own HBM (page tables, the SRAM's backing by its HBM address)
 * and registers the emulator does not model, is -EINVAL, as upstream's
 * answer for an address in no region; a malformed register write (one the
 * sync manager refuses) is -EINVAL too. Memory is accessed inside an engine
 * access (hl_device_hw_access_begin()), as an engine's.
 *
 * clk_gate: the engines' clock-gating mask of upstream's older drivers,
 * which hl-thunk-open's register tests open beside addr and data32 (and
 * set to 0 while they run): a value kept and read back, with no effect,
 * since no emulated engine is clock-gated.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "emu.h"
#include "emu_nic.h"
#include "emu_sync.h"

/* The HBM address of [@addr, + @len) in SRAM or user DRAM, or -EINVAL */
static int hl_emu_dbg_hbm(struct hl_emu_device *emu, u64 addr, u32 len,
			  u64 *hbm)
{
	const struct asic_fixed_properties *prop = hl_device_prop(emu->hdev);
	u64 base = prop->dram_user_base_address;

	if (addr >= base && addr - base <= prop->dram_user_size - len) {
		*hbm = addr;
		return 0;
	}
	base = prop->sram_base_address;
	if (addr >= base && addr - base <= prop->sram_size - len) {
		*hbm = emu->sram_hbm + (addr - base);
		return 0;
	}
	return -EINVAL;
}

static int hl_emu_dbg_access(struct hl_emu_device *emu, u64 addr, u64 *val,
			     u32 len, bool write)
{
	u32 lo, hi;
	u64 hbm;
	int rc;

	if (hl_emu_sync_is_reg(emu, addr)) {
		if (len == sizeof(u32)) {
			if (write)
				return hl_emu_sync_write(emu, addr, *val);
			rc = hl_emu_sync_read(emu, addr, &lo);
			*val = lo;
			return rc;
		}
		if (!hl_emu_sync_is_reg(emu, addr + sizeof(u32)))
			return -EINVAL;
		if (write) {
			rc = hl_emu_sync_write(emu, addr, lower_32_bits(*val));
			return rc ?: hl_emu_sync_write(emu, addr + sizeof(u32),
						       upper_32_bits(*val));
		}
		rc = hl_emu_sync_read(emu, addr, &lo) ?:
		     hl_emu_sync_read(emu, addr + sizeof(u32), &hi);
		*val = (u64)hi << 32 | lo;
		return rc;
	}

	rc = hl_emu_dbg_hbm(emu, addr, len, &hbm);
	if (rc)
		return rc;
	hl_device_hw_access_begin(emu->hdev);
	if (len == sizeof(u32)) {
		if (write)
			writel(*val, emu->hbm + hbm);
		else
			*val = readl(emu->hbm + hbm);
	} else {
		if (write)
			writeq(*val, emu->hbm + hbm);
		else
			*val = readq(emu->hbm + hbm);
	}
	hl_device_hw_access_end(emu->hdev);
	return 0;
}

static ssize_t hl_emu_dbg_read(struct file *f, char __user *buf, size_t count,
			       loff_t *ppos, u32 len)
{
	struct hl_emu_device *emu = file_inode(f)->i_private;
	char tmp[32];
	u64 val = 0;
	int rc;

	if (*ppos)
		return 0;
	rc = hl_emu_dbg_access(emu, READ_ONCE(emu->dbg_addr), &val, len, false);
	if (rc)
		return rc;
	if (len == sizeof(u32))
		snprintf(tmp, sizeof(tmp), "0x%08x\n", (u32)val);
	else
		snprintf(tmp, sizeof(tmp), "0x%016llx\n", val);
	return simple_read_from_buffer(buf, count, ppos, tmp, strlen(tmp));
}

static ssize_t hl_emu_dbg_write(struct file *f, const char __user *buf,
				size_t count, u32 len)
{
	struct hl_emu_device *emu = file_inode(f)->i_private;
	u64 val;
	int rc;

	rc = kstrtoull_from_user(buf, count, 16, &val);
	if (rc)
		return rc;
	if (len == sizeof(u32) && val > U32_MAX)
		return -EINVAL;
	rc = hl_emu_dbg_access(emu, READ_ONCE(emu->dbg_addr), &val, len, true);
	return rc ?: count;
}

static ssize_t hl_emu_data32_read(struct file *f, char __user *buf,
				  size_t count, loff_t *ppos)
{
	return hl_emu_dbg_read(f, buf, count, ppos, sizeof(u32));
}

static ssize_t hl_emu_data32_write(struct file *f, const char __user *buf,
				   size_t count, loff_t *ppos)
{
	return hl_emu_dbg_write(f, buf, count, sizeof(u32));
}

static ssize_t hl_emu_data64_read(struct file *f, char __user *buf,
				  size_t count, loff_t *ppos)
{
	return hl_emu_dbg_read(f, buf, count, ppos, sizeof(u64));
}

static ssize_t hl_emu_data64_write(struct file *f, const char __user *buf,
				   size_t count, loff_t *ppos)
{
	return hl_emu_dbg_write(f, buf, count, sizeof(u64));
}

static const struct file_operations hl_emu_data32_fops = {
	.owner = THIS_MODULE,
	.read = hl_emu_data32_read,
	.write = hl_emu_data32_write,
	.llseek = default_llseek,
};

static const struct file_operations hl_emu_data64_fops = {
	.owner = THIS_MODULE,
	.read = hl_emu_data64_read,
	.write = hl_emu_data64_write,
	.llseek = default_llseek,
};

/**
 * hl_emu_debugfs_init - asic_funcs->debugfs_init: the NIC's files and,
 * under asic=gaudi, addr, data32, data64 and clk_gate.
 * @hdev: the device.
 * @root: its debugfs directory.
 */
void hl_emu_debugfs_init(struct hl_device *hdev, struct dentry *root)
{
	struct hl_emu_device *emu = to_emu(hdev);

	hl_emu_nic_debugfs_init(hdev, root);
	if (!emu->phys_dram)
		return;
	debugfs_create_x64("addr", 0600, root, &emu->dbg_addr);
	debugfs_create_file("data32", 0600, root, emu, &hl_emu_data32_fops);
	debugfs_create_file("data64", 0600, root, emu, &hl_emu_data64_fops);
	debugfs_create_x64("clk_gate", 0600, root, &emu->dbg_clk_gate);
}
