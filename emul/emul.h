/* The emulation backend (emul.c): the controller on the real fabric. */
#ifndef HYDE_EMUL_H
#define HYDE_EMUL_H

#include "ctl/backend.h"

extern const struct backend_ops backend_emul;

#endif
