// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: placeholder misc device until the user-space ABI lands.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "hwtimer_internal.h"

static struct hwtimer_wheel *dev_wheel;

void hwt_set_default_wheel(struct hwtimer_wheel *wheel)
{
	dev_wheel = wheel;
}

static const struct file_operations hwt_fops = {
	.owner = THIS_MODULE,
};

static struct miscdevice hwt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hwtimer",
	.fops = &hwt_fops,
	.mode = 0666,
};

int hwt_dev_init(void)
{
	return misc_register(&hwt_misc);
}

void hwt_dev_exit(void)
{
	misc_deregister(&hwt_misc);
}
