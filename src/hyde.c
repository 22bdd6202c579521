/* hyde: HYbrid Datacenter Emulator. Everything but main() lives in the
 * convenience library, so that the tests link the same objects. */
#include "config.h"

#include "cli.h"

int main(int argc, char **argv)
{
	return hyde_main(argc, argv);
}
