/* Unit tests for the line diff's algorithms (diff/line_diff.h): hunks as
 * git 2.53 prints them with --diff-algorithm=myers, minimal, patience and
 * histogram (and histogram with --no-indent-heuristic) for inputs where
 * they disagree (the classic frobnitz/fact/fib example, lines unique on
 * one side and rare on the other, stretches without unique lines that
 * go back to Myers); the algorithm names; random edits whose changes must
 * turn one text into the other with every algorithm, --minimal never
 * longer than Myers; and inputs made to be slow for each (one line
 * repeated, thousands of distinct lines, many anchors) that must finish. */
#include <string.h>

#include "diff/line_diff.h"
#include "diff/unified.h"
#include "util/error.h"
#include "test.h"

#define NALGO 5   /* the four algorithms, then histogram without the indent heuristic */

struct algo_case {
	const char *name, *a, *b;
	const char *hunks[NALGO];
};

/* made with: git diff --no-index --diff-algorithm=X a b (from the first
 * "@@"), X myers, minimal, patience, histogram, then histogram with
 * --no-indent-heuristic */
static const struct algo_case cases[] = {
	{ "frobnitz",
	  "#include <stdio.h>\n"
	  "\n"
	  "// Frobs foo heartily\n"
	  "int frobnitz(int foo)\n"
	  "{\n"
	  "    int i;\n"
	  "    for(i = 0; i < 10; i++)\n"
	  "    {\n"
	  "        printf(\"Your answer is: \");\n"
	  "        printf(\"%d\\n\", foo);\n"
	  "    }\n"
	  "}\n"
	  "\n"
	  "int fact(int n)\n"
	  "{\n"
	  "    if(n > 1)\n"
	  "    {\n"
	  "        return fact(n-1) * n;\n"
	  "    }\n"
	  "    return 1;\n"
	  "}\n"
	  "\n"
	  "int main(int argc, char **argv)\n"
	  "{\n"
	  "    frobnitz(fact(10));\n"
	  "}\n",
	  "#include <stdio.h>\n"
	  "\n"
	  "int fib(int n)\n"
	  "{\n"
	  "    if(n > 2)\n"
	  "    {\n"
	  "        return fib(n-1) + fib(n-2);\n"
	  "    }\n"
	  "    return 1;\n"
	  "}\n"
	  "\n"
	  "// Frobs foo heartily\n"
	  "int frobnitz(int foo)\n"
	  "{\n"
	  "    int i;\n"
	  "    for(i = 0; i < 10; i++)\n"
	  "    {\n"
	  "        printf(\"%d\\n\", foo);\n"
	  "    }\n"
	  "}\n"
	  "\n"
	  "int main(int argc, char **argv)\n"
	  "{\n"
	  "    frobnitz(fib(10));\n"
	  "}\n",
	  {
	  "@@ -1,26 +1,25 @@\n"
	  " #include <stdio.h>\n"
	  " \n"
	  "-// Frobs foo heartily\n"
	  "-int frobnitz(int foo)\n"
	  "+int fib(int n)\n"
	  " {\n"
	  "-    int i;\n"
	  "-    for(i = 0; i < 10; i++)\n"
	  "+    if(n > 2)\n"
	  "     {\n"
	  "-        printf(\"Your answer is: \");\n"
	  "-        printf(\"%d\\n\", foo);\n"
	  "+        return fib(n-1) + fib(n-2);\n"
	  "     }\n"
	  "+    return 1;\n"
	  " }\n"
	  " \n"
	  "-int fact(int n)\n"
	  "+// Frobs foo heartily\n"
	  "+int frobnitz(int foo)\n"
	  " {\n"
	  "-    if(n > 1)\n"
	  "+    int i;\n"
	  "+    for(i = 0; i < 10; i++)\n"
	  "     {\n"
	  "-        return fact(n-1) * n;\n"
	  "+        printf(\"%d\\n\", foo);\n"
	  "     }\n"
	  "-    return 1;\n"
	  " }\n"
	  " \n"
	  " int main(int argc, char **argv)\n"
	  " {\n"
	  "-    frobnitz(fact(10));\n"
	  "+    frobnitz(fib(10));\n"
	  " }\n",
	  "@@ -1,26 +1,25 @@\n"
	  " #include <stdio.h>\n"
	  " \n"
	  "-// Frobs foo heartily\n"
	  "-int frobnitz(int foo)\n"
	  "+int fib(int n)\n"
	  " {\n"
	  "-    int i;\n"
	  "-    for(i = 0; i < 10; i++)\n"
	  "+    if(n > 2)\n"
	  "     {\n"
	  "-        printf(\"Your answer is: \");\n"
	  "-        printf(\"%d\\n\", foo);\n"
	  "+        return fib(n-1) + fib(n-2);\n"
	  "     }\n"
	  "+    return 1;\n"
	  " }\n"
	  " \n"
	  "-int fact(int n)\n"
	  "+// Frobs foo heartily\n"
	  "+int frobnitz(int foo)\n"
	  " {\n"
	  "-    if(n > 1)\n"
	  "+    int i;\n"
	  "+    for(i = 0; i < 10; i++)\n"
	  "     {\n"
	  "-        return fact(n-1) * n;\n"
	  "+        printf(\"%d\\n\", foo);\n"
	  "     }\n"
	  "-    return 1;\n"
	  " }\n"
	  " \n"
	  " int main(int argc, char **argv)\n"
	  " {\n"
	  "-    frobnitz(fact(10));\n"
	  "+    frobnitz(fib(10));\n"
	  " }\n",
	  "@@ -1,26 +1,25 @@\n"
	  " #include <stdio.h>\n"
	  " \n"
	  "+int fib(int n)\n"
	  "+{\n"
	  "+    if(n > 2)\n"
	  "+    {\n"
	  "+        return fib(n-1) + fib(n-2);\n"
	  "+    }\n"
	  "+    return 1;\n"
	  "+}\n"
	  "+\n"
	  " // Frobs foo heartily\n"
	  " int frobnitz(int foo)\n"
	  " {\n"
	  "     int i;\n"
	  "     for(i = 0; i < 10; i++)\n"
	  "     {\n"
	  "-        printf(\"Your answer is: \");\n"
	  "         printf(\"%d\\n\", foo);\n"
	  "     }\n"
	  " }\n"
	  " \n"
	  "-int fact(int n)\n"
	  "-{\n"
	  "-    if(n > 1)\n"
	  "-    {\n"
	  "-        return fact(n-1) * n;\n"
	  "-    }\n"
	  "-    return 1;\n"
	  "-}\n"
	  "-\n"
	  " int main(int argc, char **argv)\n"
	  " {\n"
	  "-    frobnitz(fact(10));\n"
	  "+    frobnitz(fib(10));\n"
	  " }\n",
	  "@@ -1,26 +1,25 @@\n"
	  " #include <stdio.h>\n"
	  " \n"
	  "+int fib(int n)\n"
	  "+{\n"
	  "+    if(n > 2)\n"
	  "+    {\n"
	  "+        return fib(n-1) + fib(n-2);\n"
	  "+    }\n"
	  "+    return 1;\n"
	  "+}\n"
	  "+\n"
	  " // Frobs foo heartily\n"
	  " int frobnitz(int foo)\n"
	  " {\n"
	  "     int i;\n"
	  "     for(i = 0; i < 10; i++)\n"
	  "     {\n"
	  "-        printf(\"Your answer is: \");\n"
	  "         printf(\"%d\\n\", foo);\n"
	  "     }\n"
	  " }\n"
	  " \n"
	  "-int fact(int n)\n"
	  "-{\n"
	  "-    if(n > 1)\n"
	  "-    {\n"
	  "-        return fact(n-1) * n;\n"
	  "-    }\n"
	  "-    return 1;\n"
	  "-}\n"
	  "-\n"
	  " int main(int argc, char **argv)\n"
	  " {\n"
	  "-    frobnitz(fact(10));\n"
	  "+    frobnitz(fib(10));\n"
	  " }\n",
	  "@@ -1,26 +1,25 @@\n"
	  " #include <stdio.h>\n"
	  " \n"
	  "+int fib(int n)\n"
	  "+{\n"
	  "+    if(n > 2)\n"
	  "+    {\n"
	  "+        return fib(n-1) + fib(n-2);\n"
	  "+    }\n"
	  "+    return 1;\n"
	  "+}\n"
	  "+\n"
	  " // Frobs foo heartily\n"
	  " int frobnitz(int foo)\n"
	  " {\n"
	  "     int i;\n"
	  "     for(i = 0; i < 10; i++)\n"
	  "     {\n"
	  "-        printf(\"Your answer is: \");\n"
	  "         printf(\"%d\\n\", foo);\n"
	  "     }\n"
	  " }\n"
	  " \n"
	  "-int fact(int n)\n"
	  "-{\n"
	  "-    if(n > 1)\n"
	  "-    {\n"
	  "-        return fact(n-1) * n;\n"
	  "-    }\n"
	  "-    return 1;\n"
	  "-}\n"
	  "-\n"
	  " int main(int argc, char **argv)\n"
	  " {\n"
	  "-    frobnitz(fact(10));\n"
	  "+    frobnitz(fib(10));\n"
	  " }\n",
	  } },
	{ "patience_only",
	  "{\n"
	  "\n"
	  "}\n"
	  "x = 1;\n"
	  "f();\n",
	  "{\n"
	  "f();\n"
	  "\n"
	  "}\n"
	  "\n"
	  "}\n"
	  "x = 1;\n",
	  {
	  "@@ -1,5 +1,7 @@\n"
	  " {\n"
	  "+f();\n"
	  "+\n"
	  "+}\n"
	  " \n"
	  " }\n"
	  " x = 1;\n"
	  "-f();\n",
	  "@@ -1,5 +1,7 @@\n"
	  " {\n"
	  "+f();\n"
	  "+\n"
	  "+}\n"
	  " \n"
	  " }\n"
	  " x = 1;\n"
	  "-f();\n",
	  "@@ -1,5 +1,7 @@\n"
	  " {\n"
	  "-\n"
	  "-}\n"
	  "-x = 1;\n"
	  " f();\n"
	  "+\n"
	  "+}\n"
	  "+\n"
	  "+}\n"
	  "+x = 1;\n",
	  "@@ -1,5 +1,7 @@\n"
	  " {\n"
	  "+f();\n"
	  "+\n"
	  "+}\n"
	  " \n"
	  " }\n"
	  " x = 1;\n"
	  "-f();\n",
	  "@@ -1,5 +1,7 @@\n"
	  " {\n"
	  "+f();\n"
	  "+\n"
	  "+}\n"
	  " \n"
	  " }\n"
	  " x = 1;\n"
	  "-f();\n",
	  } },
	{ "unique_vs_rare",
	  "{\n"
	  "x = 1;\n"
	  "return 0;\n"
	  "}\n"
	  "}\n",
	  "{\n"
	  "x = 1;\n"
	  "}\n"
	  "return 0;\n"
	  "}\n",
	  {
	  "@@ -1,5 +1,5 @@\n"
	  " {\n"
	  " x = 1;\n"
	  "-return 0;\n"
	  " }\n"
	  "+return 0;\n"
	  " }\n",
	  "@@ -1,5 +1,5 @@\n"
	  " {\n"
	  " x = 1;\n"
	  "-return 0;\n"
	  " }\n"
	  "+return 0;\n"
	  " }\n",
	  "@@ -1,5 +1,5 @@\n"
	  " {\n"
	  " x = 1;\n"
	  "+}\n"
	  " return 0;\n"
	  " }\n"
	  "-}\n",
	  "@@ -1,5 +1,5 @@\n"
	  " {\n"
	  " x = 1;\n"
	  "+}\n"
	  " return 0;\n"
	  " }\n"
	  "-}\n",
	  "@@ -1,5 +1,5 @@\n"
	  " {\n"
	  " x = 1;\n"
	  "+}\n"
	  " return 0;\n"
	  " }\n"
	  "-}\n",
	  } },
	{ "histogram_only",
	  "\n"
	  "\n"
	  "{\n"
	  "{\n"
	  "}\n"
	  "}\n",
	  "}\n"
	  "\n"
	  "\n"
	  "{\n"
	  "}\n"
	  "{\n"
	  "}\n",
	  {
	  "@@ -1,6 +1,7 @@\n"
	  "+}\n"
	  " \n"
	  " \n"
	  "-{\n"
	  " {\n"
	  " }\n"
	  "+{\n"
	  " }\n",
	  "@@ -1,6 +1,7 @@\n"
	  "+}\n"
	  " \n"
	  " \n"
	  "-{\n"
	  " {\n"
	  " }\n"
	  "+{\n"
	  " }\n",
	  "@@ -1,6 +1,7 @@\n"
	  "+}\n"
	  " \n"
	  " \n"
	  "-{\n"
	  " {\n"
	  " }\n"
	  "+{\n"
	  " }\n",
	  "@@ -1,6 +1,7 @@\n"
	  "+}\n"
	  " \n"
	  " \n"
	  " {\n"
	  "+}\n"
	  " {\n"
	  " }\n"
	  "-}\n",
	  "@@ -1,6 +1,7 @@\n"
	  "+}\n"
	  " \n"
	  " \n"
	  " {\n"
	  "+}\n"
	  " {\n"
	  " }\n"
	  "-}\n",
	  } },
	{ "three_ways",
	  "{\n"
	  "return 0;\n"
	  "}\n"
	  "y = 2;\n"
	  "return 0;\n"
	  "g();\n"
	  "f();\n",
	  "{\n"
	  "return 0;\n"
	  "g();\n"
	  "return 0;\n"
	  "y = 2;\n"
	  "g();\n"
	  "}\n"
	  "f();\n",
	  {
	  "@@ -1,7 +1,8 @@\n"
	  " {\n"
	  " return 0;\n"
	  "-}\n"
	  "-y = 2;\n"
	  "+g();\n"
	  " return 0;\n"
	  "+y = 2;\n"
	  " g();\n"
	  "+}\n"
	  " f();\n",
	  "@@ -1,7 +1,8 @@\n"
	  " {\n"
	  " return 0;\n"
	  "-}\n"
	  "-y = 2;\n"
	  "+g();\n"
	  " return 0;\n"
	  "+y = 2;\n"
	  " g();\n"
	  "+}\n"
	  " f();\n",
	  "@@ -1,7 +1,8 @@\n"
	  " {\n"
	  " return 0;\n"
	  "-}\n"
	  "+g();\n"
	  "+return 0;\n"
	  " y = 2;\n"
	  "-return 0;\n"
	  " g();\n"
	  "+}\n"
	  " f();\n",
	  "@@ -1,7 +1,8 @@\n"
	  " {\n"
	  " return 0;\n"
	  "-}\n"
	  "-y = 2;\n"
	  "-return 0;\n"
	  " g();\n"
	  "+return 0;\n"
	  "+y = 2;\n"
	  "+g();\n"
	  "+}\n"
	  " f();\n",
	  "@@ -1,7 +1,8 @@\n"
	  " {\n"
	  " return 0;\n"
	  "-}\n"
	  "-y = 2;\n"
	  "-return 0;\n"
	  " g();\n"
	  "+return 0;\n"
	  "+y = 2;\n"
	  "+g();\n"
	  "+}\n"
	  " f();\n",
	  } },
	{ "indent",
	  "int f(void)\n"
	  "{\n"
	  "\tif (a) {\n"
	  "\t\tx();\n"
	  "\t}\n"
	  "\n"
	  "\treturn 0;\n"
	  "}\n",
	  "int f(void)\n"
	  "{\n"
	  "\tif (a) {\n"
	  "\t\tx();\n"
	  "\t}\n"
	  "\n"
	  "\tif (b) {\n"
	  "\t\ty();\n"
	  "\t}\n"
	  "\n"
	  "\treturn 0;\n"
	  "}\n",
	  {
	  "@@ -4,5 +4,9 @@ int f(void)\n"
	  " \t\tx();\n"
	  " \t}\n"
	  " \n"
	  "+\tif (b) {\n"
	  "+\t\ty();\n"
	  "+\t}\n"
	  "+\n"
	  " \treturn 0;\n"
	  " }\n",
	  "@@ -4,5 +4,9 @@ int f(void)\n"
	  " \t\tx();\n"
	  " \t}\n"
	  " \n"
	  "+\tif (b) {\n"
	  "+\t\ty();\n"
	  "+\t}\n"
	  "+\n"
	  " \treturn 0;\n"
	  " }\n",
	  "@@ -4,5 +4,9 @@ int f(void)\n"
	  " \t\tx();\n"
	  " \t}\n"
	  " \n"
	  "+\tif (b) {\n"
	  "+\t\ty();\n"
	  "+\t}\n"
	  "+\n"
	  " \treturn 0;\n"
	  " }\n",
	  "@@ -4,5 +4,9 @@ int f(void)\n"
	  " \t\tx();\n"
	  " \t}\n"
	  " \n"
	  "+\tif (b) {\n"
	  "+\t\ty();\n"
	  "+\t}\n"
	  "+\n"
	  " \treturn 0;\n"
	  " }\n",
	  "@@ -4,5 +4,9 @@ int f(void)\n"
	  " \t\tx();\n"
	  " \t}\n"
	  " \n"
	  "+\tif (b) {\n"
	  "+\t\ty();\n"
	  "+\t}\n"
	  "+\n"
	  " \treturn 0;\n"
	  " }\n",
	  } },
	{ "moved_function",
	  "int a(void)\n"
	  "{\n"
	  "\tone();\n"
	  "\treturn 1;\n"
	  "}\n"
	  "\n"
	  "int b(void)\n"
	  "{\n"
	  "\ttwo();\n"
	  "\treturn 2;\n"
	  "}\n"
	  "\n"
	  "int c(void)\n"
	  "{\n"
	  "\tthree();\n"
	  "\treturn 3;\n"
	  "}\n",
	  "int a(void)\n"
	  "{\n"
	  "\tone();\n"
	  "\treturn 1;\n"
	  "}\n"
	  "\n"
	  "int c(void)\n"
	  "{\n"
	  "\tthree();\n"
	  "\treturn 3;\n"
	  "}\n"
	  "\n"
	  "int b(void)\n"
	  "{\n"
	  "\ttwo();\n"
	  "\treturn 2;\n"
	  "}\n",
	  {
	  "@@ -4,14 +4,14 @@ int a(void)\n"
	  " \treturn 1;\n"
	  " }\n"
	  " \n"
	  "-int b(void)\n"
	  "-{\n"
	  "-\ttwo();\n"
	  "-\treturn 2;\n"
	  "-}\n"
	  "-\n"
	  " int c(void)\n"
	  " {\n"
	  " \tthree();\n"
	  " \treturn 3;\n"
	  " }\n"
	  "+\n"
	  "+int b(void)\n"
	  "+{\n"
	  "+\ttwo();\n"
	  "+\treturn 2;\n"
	  "+}\n",
	  "@@ -4,14 +4,14 @@ int a(void)\n"
	  " \treturn 1;\n"
	  " }\n"
	  " \n"
	  "-int b(void)\n"
	  "-{\n"
	  "-\ttwo();\n"
	  "-\treturn 2;\n"
	  "-}\n"
	  "-\n"
	  " int c(void)\n"
	  " {\n"
	  " \tthree();\n"
	  " \treturn 3;\n"
	  " }\n"
	  "+\n"
	  "+int b(void)\n"
	  "+{\n"
	  "+\ttwo();\n"
	  "+\treturn 2;\n"
	  "+}\n",
	  "@@ -4,14 +4,14 @@ int a(void)\n"
	  " \treturn 1;\n"
	  " }\n"
	  " \n"
	  "-int b(void)\n"
	  "-{\n"
	  "-\ttwo();\n"
	  "-\treturn 2;\n"
	  "-}\n"
	  "-\n"
	  " int c(void)\n"
	  " {\n"
	  " \tthree();\n"
	  " \treturn 3;\n"
	  " }\n"
	  "+\n"
	  "+int b(void)\n"
	  "+{\n"
	  "+\ttwo();\n"
	  "+\treturn 2;\n"
	  "+}\n",
	  "@@ -4,14 +4,14 @@ int a(void)\n"
	  " \treturn 1;\n"
	  " }\n"
	  " \n"
	  "-int b(void)\n"
	  "-{\n"
	  "-\ttwo();\n"
	  "-\treturn 2;\n"
	  "-}\n"
	  "-\n"
	  " int c(void)\n"
	  " {\n"
	  " \tthree();\n"
	  " \treturn 3;\n"
	  " }\n"
	  "+\n"
	  "+int b(void)\n"
	  "+{\n"
	  "+\ttwo();\n"
	  "+\treturn 2;\n"
	  "+}\n",
	  "@@ -4,14 +4,14 @@ int a(void)\n"
	  " \treturn 1;\n"
	  " }\n"
	  " \n"
	  "-int b(void)\n"
	  "-{\n"
	  "-\ttwo();\n"
	  "-\treturn 2;\n"
	  "-}\n"
	  "-\n"
	  " int c(void)\n"
	  " {\n"
	  " \tthree();\n"
	  " \treturn 3;\n"
	  " }\n"
	  "+\n"
	  "+int b(void)\n"
	  "+{\n"
	  "+\ttwo();\n"
	  "+\treturn 2;\n"
	  "+}\n",
	  } },
	{ "braces",
	  "void f()\n"
	  "{\n"
	  "\tx = 1;\n"
	  "}\n"
	  "\n"
	  "void g()\n"
	  "{\n"
	  "\ty = 2;\n"
	  "}\n",
	  "void f()\n"
	  "{\n"
	  "\tx = 1;\n"
	  "\tif (z) {\n"
	  "\t\tw();\n"
	  "\t}\n"
	  "}\n"
	  "\n"
	  "void h()\n"
	  "{\n"
	  "\tq = 3;\n"
	  "}\n"
	  "\n"
	  "void g()\n"
	  "{\n"
	  "\ty = 2;\n"
	  "}\n",
	  {
	  "@@ -1,6 +1,14 @@\n"
	  " void f()\n"
	  " {\n"
	  " \tx = 1;\n"
	  "+\tif (z) {\n"
	  "+\t\tw();\n"
	  "+\t}\n"
	  "+}\n"
	  "+\n"
	  "+void h()\n"
	  "+{\n"
	  "+\tq = 3;\n"
	  " }\n"
	  " \n"
	  " void g()\n",
	  "@@ -1,6 +1,14 @@\n"
	  " void f()\n"
	  " {\n"
	  " \tx = 1;\n"
	  "+\tif (z) {\n"
	  "+\t\tw();\n"
	  "+\t}\n"
	  "+}\n"
	  "+\n"
	  "+void h()\n"
	  "+{\n"
	  "+\tq = 3;\n"
	  " }\n"
	  " \n"
	  " void g()\n",
	  "@@ -1,6 +1,14 @@\n"
	  " void f()\n"
	  " {\n"
	  " \tx = 1;\n"
	  "+\tif (z) {\n"
	  "+\t\tw();\n"
	  "+\t}\n"
	  "+}\n"
	  "+\n"
	  "+void h()\n"
	  "+{\n"
	  "+\tq = 3;\n"
	  " }\n"
	  " \n"
	  " void g()\n",
	  "@@ -1,6 +1,14 @@\n"
	  " void f()\n"
	  " {\n"
	  " \tx = 1;\n"
	  "+\tif (z) {\n"
	  "+\t\tw();\n"
	  "+\t}\n"
	  "+}\n"
	  "+\n"
	  "+void h()\n"
	  "+{\n"
	  "+\tq = 3;\n"
	  " }\n"
	  " \n"
	  " void g()\n",
	  "@@ -1,6 +1,14 @@\n"
	  " void f()\n"
	  " {\n"
	  " \tx = 1;\n"
	  "+\tif (z) {\n"
	  "+\t\tw();\n"
	  "+\t}\n"
	  "+}\n"
	  "+\n"
	  "+void h()\n"
	  "+{\n"
	  "+\tq = 3;\n"
	  " }\n"
	  " \n"
	  " void g()\n",
	  } },
	{ "rare_twice",
	  "a\n"
	  "b\n"
	  "c\n"
	  "d\n"
	  "e\n"
	  "b\n"
	  "f\n",
	  "x\n"
	  "b\n"
	  "d\n"
	  "c\n"
	  "b\n"
	  "e\n"
	  "f\n"
	  "y\n",
	  {
	  "@@ -1,7 +1,8 @@\n"
	  "-a\n"
	  "+x\n"
	  " b\n"
	  "-c\n"
	  " d\n"
	  "-e\n"
	  "+c\n"
	  " b\n"
	  "+e\n"
	  " f\n"
	  "+y\n",
	  "@@ -1,7 +1,8 @@\n"
	  "-a\n"
	  "+x\n"
	  " b\n"
	  "-c\n"
	  " d\n"
	  "-e\n"
	  "+c\n"
	  " b\n"
	  "+e\n"
	  " f\n"
	  "+y\n",
	  "@@ -1,7 +1,8 @@\n"
	  "-a\n"
	  "+x\n"
	  " b\n"
	  "-c\n"
	  " d\n"
	  "+c\n"
	  "+b\n"
	  " e\n"
	  "-b\n"
	  " f\n"
	  "+y\n",
	  "@@ -1,7 +1,8 @@\n"
	  "-a\n"
	  "+x\n"
	  " b\n"
	  "-c\n"
	  " d\n"
	  "-e\n"
	  "+c\n"
	  " b\n"
	  "+e\n"
	  " f\n"
	  "+y\n",
	  "@@ -1,7 +1,8 @@\n"
	  "-a\n"
	  "+x\n"
	  " b\n"
	  "-c\n"
	  " d\n"
	  "-e\n"
	  "+c\n"
	  " b\n"
	  "+e\n"
	  " f\n"
	  "+y\n",
	  } },
	{ "no_unique",
	  "x\n"
	  "y\n"
	  "x\n"
	  "y\n"
	  "z\n"
	  "z\n",
	  "y\n"
	  "x\n"
	  "y\n"
	  "x\n"
	  "z\n"
	  "z\n"
	  "x\n",
	  {
	  "@@ -1,6 +1,7 @@\n"
	  "-x\n"
	  " y\n"
	  " x\n"
	  " y\n"
	  "+x\n"
	  " z\n"
	  " z\n"
	  "+x\n",
	  "@@ -1,6 +1,7 @@\n"
	  "-x\n"
	  " y\n"
	  " x\n"
	  " y\n"
	  "+x\n"
	  " z\n"
	  " z\n"
	  "+x\n",
	  "@@ -1,6 +1,7 @@\n"
	  "-x\n"
	  " y\n"
	  " x\n"
	  " y\n"
	  "+x\n"
	  " z\n"
	  " z\n"
	  "+x\n",
	  "@@ -1,6 +1,7 @@\n"
	  "-x\n"
	  " y\n"
	  " x\n"
	  " y\n"
	  "+x\n"
	  " z\n"
	  " z\n"
	  "+x\n",
	  "@@ -1,6 +1,7 @@\n"
	  "-x\n"
	  " y\n"
	  " x\n"
	  " y\n"
	  "+x\n"
	  " z\n"
	  " z\n"
	  "+x\n",
	  } },
	{ "swap",
	  "1\n"
	  "2\n"
	  "3\n"
	  "A\n"
	  "B\n"
	  "C\n"
	  "4\n"
	  "5\n",
	  "A\n"
	  "B\n"
	  "C\n"
	  "1\n"
	  "2\n"
	  "3\n"
	  "4\n"
	  "5\n",
	  {
	  "@@ -1,8 +1,8 @@\n"
	  "-1\n"
	  "-2\n"
	  "-3\n"
	  " A\n"
	  " B\n"
	  " C\n"
	  "+1\n"
	  "+2\n"
	  "+3\n"
	  " 4\n"
	  " 5\n",
	  "@@ -1,8 +1,8 @@\n"
	  "-1\n"
	  "-2\n"
	  "-3\n"
	  " A\n"
	  " B\n"
	  " C\n"
	  "+1\n"
	  "+2\n"
	  "+3\n"
	  " 4\n"
	  " 5\n",
	  "@@ -1,8 +1,8 @@\n"
	  "-1\n"
	  "-2\n"
	  "-3\n"
	  " A\n"
	  " B\n"
	  " C\n"
	  "+1\n"
	  "+2\n"
	  "+3\n"
	  " 4\n"
	  " 5\n",
	  "@@ -1,8 +1,8 @@\n"
	  "-1\n"
	  "-2\n"
	  "-3\n"
	  " A\n"
	  " B\n"
	  " C\n"
	  "+1\n"
	  "+2\n"
	  "+3\n"
	  " 4\n"
	  " 5\n",
	  "@@ -1,8 +1,8 @@\n"
	  "-1\n"
	  "-2\n"
	  "-3\n"
	  " A\n"
	  " B\n"
	  " C\n"
	  "+1\n"
	  "+2\n"
	  "+3\n"
	  " 4\n"
	  " 5\n",
	  } },
};

static const struct wg_line_diff_options algo_options[NALGO] = {
	{ WG_DIFF_MYERS, false, 0 },
	{ WG_DIFF_MINIMAL, false, 0 },
	{ WG_DIFF_PATIENCE, false, 0 },
	{ WG_DIFF_HISTOGRAM, false, 0 },
	{ WG_DIFF_HISTOGRAM, true, 0 },
};

static void test_git_hunks(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int k = 0; k < NALGO; k++) {
			const struct algo_case *c = &cases[i];
			struct wg_unified_options uo = WG_UNIFIED_OPTIONS_INIT;
			struct wg_line_diff d;
			struct wg_buf out = WG_BUF_INIT;
			CHECK_OK(wg_line_diff_run_with(&d, c->a, strlen(c->a), c->b, strlen(c->b),
						       &algo_options[k]));
			CHECK_OK(wg_unified_hunks(&out, &d, &uo));
			CHECK_STR(wg_buf_cstr(&out), c->hunks[k]);
			wg_line_diff_release(&d);
			wg_buf_release(&out);
		}
	}
}

#define NWS 4

struct ws_case {
	const char *name, *a, *b;
	const char *hunks[NWS];
};

/* made with: git diff --no-index X a b, X -w, -b, --ignore-space-at-eol,
 * --ignore-cr-at-eol: context lines come from the new side */
static const struct ws_case ws_cases[] = {
	{ "spaces",
	  "int f(void)\n"
	  "{\n"
	  "\tint x = 1;\n"
	  "\treturn  x;\n"
	  "}\n",
	  "int f(void)\n"
	  "{\n"
	  "    int x =  1;\n"
	  "\treturn x; \n"
	  "\tnew();\n"
	  "}  \n",
	  {
	  "@@ -2,4 +2,5 @@ int f(void)\n"
	  " {\n"
	  "     int x =  1;\n"
	  " \treturn x; \n"
	  "+\tnew();\n"
	  " }  \n",
	  "@@ -2,4 +2,5 @@ int f(void)\n"
	  " {\n"
	  "     int x =  1;\n"
	  " \treturn x; \n"
	  "+\tnew();\n"
	  " }  \n",
	  "@@ -1,5 +1,6 @@\n"
	  " int f(void)\n"
	  " {\n"
	  "-\tint x = 1;\n"
	  "-\treturn  x;\n"
	  "+    int x =  1;\n"
	  "+\treturn x; \n"
	  "+\tnew();\n"
	  " }  \n",
	  "@@ -1,5 +1,6 @@\n"
	  " int f(void)\n"
	  " {\n"
	  "-\tint x = 1;\n"
	  "-\treturn  x;\n"
	  "-}\n"
	  "+    int x =  1;\n"
	  "+\treturn x; \n"
	  "+\tnew();\n"
	  "+}  \n",
	  } },
	{ "crlf",
	  "a\r\n"
	  "b\n"
	  "c\r\n"
	  "d\n",
	  "a\n"
	  "b\r\n"
	  "c\r\n"
	  "D\r\n"
	  "e",
	  {
	  "@@ -1,4 +1,5 @@\n"
	  " a\n"
	  " b\r\n"
	  " c\r\n"
	  "-d\n"
	  "+D\r\n"
	  "+e\n"
	  "\\ No newline at end of file\n",
	  "@@ -1,4 +1,5 @@\n"
	  " a\n"
	  " b\r\n"
	  " c\r\n"
	  "-d\n"
	  "+D\r\n"
	  "+e\n"
	  "\\ No newline at end of file\n",
	  "@@ -1,4 +1,5 @@\n"
	  " a\n"
	  " b\r\n"
	  " c\r\n"
	  "-d\n"
	  "+D\r\n"
	  "+e\n"
	  "\\ No newline at end of file\n",
	  "@@ -1,4 +1,5 @@\n"
	  " a\n"
	  " b\r\n"
	  " c\r\n"
	  "-d\n"
	  "+D\r\n"
	  "+e\n"
	  "\\ No newline at end of file\n",
	  } },
	{ "inner",
	  "if (a&&b)\n"
	  "x\n"
	  "y\n",
	  "if (a && b)\n"
	  "x\n"
	  " y\n"
	  "z\n",
	  {
	  "@@ -1,3 +1,4 @@\n"
	  " if (a && b)\n"
	  " x\n"
	  "  y\n"
	  "+z\n",
	  "@@ -1,3 +1,4 @@\n"
	  "-if (a&&b)\n"
	  "+if (a && b)\n"
	  " x\n"
	  "-y\n"
	  "+ y\n"
	  "+z\n",
	  "@@ -1,3 +1,4 @@\n"
	  "-if (a&&b)\n"
	  "+if (a && b)\n"
	  " x\n"
	  "-y\n"
	  "+ y\n"
	  "+z\n",
	  "@@ -1,3 +1,4 @@\n"
	  "-if (a&&b)\n"
	  "+if (a && b)\n"
	  " x\n"
	  "-y\n"
	  "+ y\n"
	  "+z\n",
	  } },
	{ "eol_only",
	  "one\n"
	  "two\t\n"
	  "three\n",
	  "one \n"
	  "two\n"
	  "three\r\n",
	  {
	  "",
	  "",
	  "",
	  "@@ -1,3 +1,3 @@\n"
	  "-one\n"
	  "-two\t\n"
	  "+one \n"
	  "+two\n"
	  " three\r\n",
	  } },
};

static const unsigned ws_flags[NWS] = {
	WG_DIFF_IGNORE_ALL_SPACE,
	WG_DIFF_IGNORE_SPACE_CHANGE,
	WG_DIFF_IGNORE_SPACE_AT_EOL,
	WG_DIFF_IGNORE_CR_AT_EOL,
};

static void test_whitespace(void)
{
	for (size_t i = 0; i < sizeof(ws_cases) / sizeof(ws_cases[0]); i++) {
		for (int k = 0; k < NWS; k++) {
			const struct ws_case *c = &ws_cases[i];
			struct wg_line_diff_options o = WG_LINE_DIFF_OPTIONS_INIT;
			struct wg_unified_options uo = WG_UNIFIED_OPTIONS_INIT;
			struct wg_line_diff d;
			struct wg_buf out = WG_BUF_INIT;
			o.whitespace = ws_flags[k];
			CHECK_OK(wg_line_diff_run_with(&d, c->a, strlen(c->a), c->b, strlen(c->b), &o));
			CHECK_OK(wg_unified_hunks(&out, &d, &uo));
			CHECK_STR(wg_buf_cstr(&out), c->hunks[k]);
			wg_line_diff_release(&d);
			wg_buf_release(&out);
		}
	}
}

static void test_algorithm_names(void)
{
	static const struct {
		const char *name;
		enum wg_diff_algorithm algo;
	} ok[] = {
		{ "myers", WG_DIFF_MYERS },	    { "default", WG_DIFF_MYERS },
		{ "Minimal", WG_DIFF_MINIMAL },	    { "patience", WG_DIFF_PATIENCE },
		{ "HISTOGRAM", WG_DIFF_HISTOGRAM },
	};
	enum wg_diff_algorithm a = WG_DIFF_PATIENCE;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK_OK(wg_diff_algorithm_parse(ok[i].name, &a));
		CHECK(a == ok[i].algo);
	}
	CHECK_STR(wg_diff_algorithm_name(WG_DIFF_HISTOGRAM), "histogram");
	CHECK_STR(wg_diff_algorithm_name(WG_DIFF_MINIMAL), "minimal");
	CHECK(wg_diff_algorithm_name((enum wg_diff_algorithm)42) == NULL);
	a = WG_DIFF_PATIENCE;
	CHECK(wg_diff_algorithm_parse("histogramm", &a) == WG_EINVALID);
	CHECK(wg_diff_algorithm_parse("", &a) == WG_EINVALID);
	CHECK(wg_diff_algorithm_parse(NULL, &a) == WG_EINVALID);
	CHECK(a == WG_DIFF_PATIENCE);
	wg_error_clear();
}

static unsigned rng = 1515;
static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static void make_text(struct wg_buf *t, int n, int vocab)
{
	for (int i = 0; i < n; i++)
		wg_buf_printf(t, "%sl%u\n", next() % 4 ? "" : "\t", next() % (unsigned)vocab);
}

/* the changes, applied to a, give b; and the changed flags agree */
static long check_consistent(const struct wg_line_diff *d)
{
	long i1 = 0, i2 = 0, total = 0;
	bool ok = true;
	for (size_t k = 0; k < d->n; k++) {
		const struct wg_line_change *c = &d->v[k];
		for (; i1 < c->i1 && i2 < c->i2; i1++, i2++)
			ok = ok && !d->a.changed[i1] && !d->b.changed[i2] &&
			     d->a.lines[i1].size == d->b.lines[i2].size &&
			     !memcmp(d->a.lines[i1].ptr, d->b.lines[i2].ptr, d->a.lines[i1].size);
		ok = ok && i1 == c->i1 && i2 == c->i2;
		for (long j = 0; j < c->chg1; j++)
			ok = ok && d->a.changed[i1 + j];
		for (long j = 0; j < c->chg2; j++)
			ok = ok && d->b.changed[i2 + j];
		i1 += c->chg1;
		i2 += c->chg2;
		total += c->chg1 + c->chg2;
	}
	ok = ok && d->a.n - i1 == d->b.n - i2;
	for (; i1 < d->a.n; i1++, i2++)
		ok = ok && d->a.lines[i1].size == d->b.lines[i2].size &&
		     !memcmp(d->a.lines[i1].ptr, d->b.lines[i2].ptr, d->a.lines[i1].size);
	CHECK(ok);
	return total;
}

static void test_random_edits(void)
{
	for (int round = 0; round < 60; round++) {
		struct wg_buf a = WG_BUF_INIT, b = WG_BUF_INIT;
		long len[NALGO];
		int vocab = round % 3 ? 12 : 400;
		make_text(&a, 50 + (int)(next() % 900), vocab);
		make_text(&b, 50 + (int)(next() % 900), vocab);
		for (int k = 0; k < NALGO; k++) {
			struct wg_line_diff d;
			CHECK_OK(wg_line_diff_run_with(&d, (const char *)a.data, a.len,
						       (const char *)b.data, b.len, &algo_options[k]));
			len[k] = check_consistent(&d);
			wg_line_diff_release(&d);
		}
		CHECK(len[1] <= len[0]);
		wg_buf_release(&a);
		wg_buf_release(&b);
	}
}

/* One line 30000 times against itself shifted, thousands of distinct
 * lines reversed, and a long text with a line every other line that
 * occurs more than 64 times (histogram's fallback): each must finish and
 * be a correct diff. */
static void test_pathological(void)
{
	struct wg_buf t[6] = { WG_BUF_INIT, WG_BUF_INIT, WG_BUF_INIT,
			       WG_BUF_INIT, WG_BUF_INIT, WG_BUF_INIT };
	for (int i = 0; i < 30000; i++)
		wg_buf_adds(&t[0], "}\n");
	wg_buf_adds(&t[1], "{\n");
	wg_buf_add(&t[1], t[0].data, t[0].len - 4);
	for (int i = 0; i < 6000; i++)
		wg_buf_printf(&t[2], "line %d\n", i);
	for (int i = 5999; i >= 0; i--)
		wg_buf_printf(&t[3], "line %d\n", i);
	for (int i = 0; i < 8000; i++)
		wg_buf_printf(&t[4], "%s\nx%u\n", i % 2 ? "}" : "", next() % 50);
	for (int i = 0; i < 8000; i++)
		wg_buf_printf(&t[5], "%s\nx%u\n", i % 3 ? "}" : "", next() % 50);
	for (int p = 0; p < 3; p++) {
		for (int k = 0; k < NALGO; k++) {
			struct wg_line_diff d;
			CHECK_OK(wg_line_diff_run_with(&d, (const char *)t[2 * p].data, t[2 * p].len,
						       (const char *)t[2 * p + 1].data,
						       t[2 * p + 1].len, &algo_options[k]));
			check_consistent(&d);
			wg_line_diff_release(&d);
		}
	}
	for (int i = 0; i < 6; i++)
		wg_buf_release(&t[i]);
}

static void test_bad_algorithm(void)
{
	struct wg_line_diff d;
	struct wg_line_diff_options o = { (enum wg_diff_algorithm)9, false, 0 };
	CHECK(wg_line_diff_run_with(&d, "a\n", 2, "b\n", 2, &o) == WG_EINVALID);
	CHECK(d.v == NULL && d.a.lines == NULL);
	wg_error_clear();
	/* NULL options are git's defaults, as wg_line_diff_run */
	CHECK_OK(wg_line_diff_run_with(&d, "a\nb\n", 4, "b\n", 2, NULL));
	CHECK(d.n == 1 && d.v[0].chg1 == 1 && d.v[0].chg2 == 0);
	wg_line_diff_release(&d);
}

WG_TEST_MAIN("diff_algorithms", WG_TEST(test_git_hunks), WG_TEST(test_whitespace),
	     WG_TEST(test_algorithm_names),
	     WG_TEST(test_random_edits), WG_TEST(test_pathological), WG_TEST(test_bad_algorithm))
