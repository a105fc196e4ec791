/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hl_edu: QEMU's edu PCI device (1234:11e8) as the DMA engine of the test
 * importers, hl_importer.c and hl_umem.c: its registers, its set-up, one
 * DMA, and a copy between a bus address and kernel memory through the edu
 * buffer and a coherent bounce buffer.
 *
 * Both modules include this file: its functions are static, so that each
 * module has its own copy (one object linked into two modules is what
 * kbuild warns about).
 *
 * Lock: hl_edu.dma_lock is the innermost lock of either module.
 */
#ifndef HL_EDU_H_
#define HL_EDU_H_

#include <linux/dma-mapping.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iopoll.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/string.h>

#define PCI_VENDOR_ID_QEMU_EDU		0x1234
#define PCI_DEVICE_ID_QEMU_EDU		0x11e8

/* edu registers (BAR0) */
#define EDU_REG_IDENT			0x00
#define EDU_IDENT_MAGIC			0xed	/* low byte; high byte: major */
#define EDU_REG_DMA_SRC			0x80
#define EDU_REG_DMA_DST			0x88
#define EDU_REG_DMA_CNT			0x90
#define EDU_REG_DMA_CMD			0x98
#define EDU_DMA_CMD_START		BIT(0)
#define EDU_DMA_CMD_TO_RAM		BIT(1)	/* edu buffer -> bus address */

/* The edu buffer, in edu's own address space */
#define EDU_BUF_ADDR			0x40000
/*
 * The buffer is 4096 bytes, but QEMU 7.2's edu range check is off by one
 * (a transfer may not reach the buffer's last byte, and QEMU aborts if it
 * does): every piece uses the first half only.
 */
#define EDU_DMA_MAX			2048

/* edu completes a DMA from a 100 ms timer; allow a busy TCG host plenty */
#define EDU_DMA_POLL_US			2000
#define EDU_DMA_TIMEOUT_US		(5 * USEC_PER_SEC)

/**
 * struct hl_edu - the edu device as a DMA engine.
 * @pdev: its PCI function.
 * @regs: BAR0.
 * @dma_lock: serialises edu DMA.
 * @bounce: coherent buffer of EDU_DMA_MAX bytes for the edu device.
 * @bounce_dma: its DMA address.
 * @broken: an edu DMA timed out; bus mastering is off, no more DMA.
 */
struct hl_edu {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct mutex dma_lock;	/* Protects: the DMA registers, @bounce, @broken */
	void *bounce;
	dma_addr_t bounce_dma;
	bool broken;
};

/**
 * hl_edu_init - map BAR0 of an enabled edu device and check it is one.
 * @edu: zeroed.
 * @pdev: the PCI function, pcim_enable_device() done.
 * @name: the driver's name, for the BAR's region.
 * @ident: Returned: the identification register (major version in the
 *	high byte).
 *
 * The DMA mask is set to 64 bits. Undo with hl_edu_fini() (the mapping is
 * managed).
 *
 * Return: 0, -ENODEV not an edu device, or an errno of the mapping or the
 * DMA mask.
 */
static inline int hl_edu_init(struct hl_edu *edu, struct pci_dev *pdev,
			      const char *name, u32 *ident)
{
	int ret;

	edu->pdev = pdev;
	mutex_init(&edu->dma_lock);

	edu->regs = pcim_iomap_region(pdev, 0, name);
	if (IS_ERR(edu->regs))
		return PTR_ERR(edu->regs);

	*ident = readl(edu->regs + EDU_REG_IDENT);
	if ((*ident & 0xff) != EDU_IDENT_MAGIC) {
		dev_err(&pdev->dev, "not an edu device (ident %#x)\n", *ident);
		return -ENODEV;
	}

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		dev_err(&pdev->dev, "no 64-bit DMA: %d\n", ret);
	return ret;
}

/* Undo hl_edu_init(), once no DMA can be started any more */
static inline void hl_edu_fini(struct hl_edu *edu)
{
	mutex_destroy(&edu->dma_lock);
}

/**
 * hl_edu_start - allocate the bounce buffer and turn bus mastering on.
 * @edu: initialised (hl_edu_init()).
 *
 * Return: 0 or -ENOMEM.
 */
static inline int hl_edu_start(struct hl_edu *edu)
{
	edu->bounce = dma_alloc_coherent(&edu->pdev->dev, EDU_DMA_MAX,
					 &edu->bounce_dma, GFP_KERNEL);
	if (!edu->bounce)
		return -ENOMEM;
	pci_set_master(edu->pdev);
	return 0;
}

/* Undo hl_edu_start(): bus mastering off, bounce buffer freed */
static inline void hl_edu_stop(struct hl_edu *edu)
{
	pci_clear_master(edu->pdev);
	dma_free_coherent(&edu->pdev->dev, EDU_DMA_MAX, edu->bounce,
			  edu->bounce_dma);
}

/*
 * One edu DMA; on timeout the device is left unusable (bus mastering off) so
 * that a late completion cannot write into memory that was reused.
 */
static inline int hl_edu_dma(struct hl_edu *edu, u64 src, u64 dst, u32 len,
			     u64 dir)
{
	u64 cmd;
	int ret;

	lockdep_assert_held(&edu->dma_lock);

	writeq(src, edu->regs + EDU_REG_DMA_SRC);
	writeq(dst, edu->regs + EDU_REG_DMA_DST);
	writeq(len, edu->regs + EDU_REG_DMA_CNT);
	writeq(EDU_DMA_CMD_START | dir, edu->regs + EDU_REG_DMA_CMD);

	ret = readq_poll_timeout(edu->regs + EDU_REG_DMA_CMD, cmd,
				 !(cmd & EDU_DMA_CMD_START),
				 EDU_DMA_POLL_US, EDU_DMA_TIMEOUT_US);
	if (ret) {
		edu->broken = true;
		pci_clear_master(edu->pdev);
		dev_err(&edu->pdev->dev,
			"edu DMA %#llx -> %#llx (%u bytes) timed out; DMA disabled\n",
			src, dst, len);
	}
	return ret;
}

/**
 * hl_edu_copy - move one piece between a bus address and kernel memory.
 * @edu: started (hl_edu_start()).
 * @addr: the bus address.
 * @kbuf: the kernel memory.
 * @len: at most EDU_DMA_MAX bytes.
 * @write: from @kbuf to @addr; else from @addr to @kbuf.
 *
 * Through the edu buffer and the bounce buffer.
 *
 * Return: 0, -EINTR (a signal while waiting for the DMA lock), -EIO the
 * device is broken, or -ETIMEDOUT (it is broken from now on).
 */
static inline int hl_edu_copy(struct hl_edu *edu, dma_addr_t addr, void *kbuf,
			      u32 len, bool write)
{
	int ret;

	ret = mutex_lock_interruptible(&edu->dma_lock);
	if (ret)
		return ret;

	if (edu->broken) {
		ret = -EIO;
		goto out_unlock;
	}

	if (write) {
		memcpy(edu->bounce, kbuf, len);
		ret = hl_edu_dma(edu, edu->bounce_dma, EDU_BUF_ADDR, len, 0);
		if (!ret)
			ret = hl_edu_dma(edu, EDU_BUF_ADDR, addr, len,
					 EDU_DMA_CMD_TO_RAM);
	} else {
		ret = hl_edu_dma(edu, addr, EDU_BUF_ADDR, len, 0);
		if (!ret)
			ret = hl_edu_dma(edu, EDU_BUF_ADDR, edu->bounce_dma, len,
					 EDU_DMA_CMD_TO_RAM);
		if (!ret) {
			/* The device wrote the bounce buffer before it
			 * cleared START.
			 */
			dma_rmb();
			memcpy(kbuf, edu->bounce, len);
		}
	}

out_unlock:
	mutex_unlock(&edu->dma_lock);
	return ret;
}

/**
 * hl_edu_fill - fill the edu buffer with one byte.
 * @edu: started (hl_edu_start()).
 * @c: the byte.
 *
 * Return: as hl_edu_copy().
 */
static inline int hl_edu_fill(struct hl_edu *edu, u8 c)
{
	int ret;

	ret = mutex_lock_interruptible(&edu->dma_lock);
	if (ret)
		return ret;

	if (edu->broken) {
		ret = -EIO;
	} else {
		memset(edu->bounce, c, EDU_DMA_MAX);
		ret = hl_edu_dma(edu, edu->bounce_dma, EDU_BUF_ADDR,
				 EDU_DMA_MAX, 0);
	}
	mutex_unlock(&edu->dma_lock);
	return ret;
}

#endif /* HL_EDU_H_ */
