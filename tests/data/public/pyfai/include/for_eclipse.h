/* Empty on purpose. pyFAI's kernel files start with #include "for_eclipse.h"
 * for their editor; pyFAI drops every #include line before it concatenates
 * the files. The direct command line keeps the files unmodified and finds
 * this empty header with -I instead. */
