/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/hwtimer: the caps (hwtimer_dev_account.c). */
#ifndef _HWTIMER_DEV_ACCOUNT_H
#define _HWTIMER_DEV_ACCOUNT_H

#include "hwtimer_dev.h"

unsigned int hwtd_file_cap(void);
unsigned int hwtd_user_cap(void);
unsigned int hwtd_global_cap(void);
long hwtd_global_count(void);
struct hwtd_user *hwtd_user_get(kuid_t uid);
void hwtd_user_put(struct hwtd_user *u);
int hwtd_charge(struct hwtd_file *file);
void hwtd_uncharge(struct hwtd_file *file, long n);
void hwtd_account_exit(void);

#endif /* _HWTIMER_DEV_ACCOUNT_H */
