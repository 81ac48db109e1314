// SPDX-License-Identifier: GPL-2.0-only
/* vm_flags_set(): vma->vm_flags became read-only */
#include <linux/mm.h>

void probe_flags(struct vm_area_struct *vma);
void probe_flags(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTEXPAND);
}
