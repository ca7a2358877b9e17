#ifndef CNICE_SHIM_H
#define CNICE_SHIM_H

#include <agent.h>

#endif
