/*
 * serve_openapi.c -- GET /openapi.json: the document that describes alea
 * serve's paths, requests and answers (serve_api.c), for generators of
 * clients.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in serve.h */

#include "cli.h"

#ifdef ALEA_HAVE_HTTP /* alea-serve's alone (cli.h, cmd_serve, says why) */

#include "serve.h"

#include <stdlib.h>
#include <string.h>

/* GET /openapi.json: this service described for generators of clients
 * (OpenAPI 3.0), its version the library's; tests/cli/serve_test.py checks
 * the answers against it. Lines, joined as it is answered: a string
 * literal this long is past what C11 compilers must take. */
static const char *const openapi_lines[] = {
    "{\"openapi\": \"3.0.3\",\n",
    " \"info\": {\"title\": \"alea serve\", \"version\": \"VERSION\",\n",
    "  \"description\": \"Dice rolls, distributions and comparisons as JSON, for bots. Every request with a body is sent as application/json; requests with an Origin header are refused.\"},\n",
    " \"paths\": {\n",
    "  \"/roll\": {\"post\": {\"summary\": \"Roll an expression n times\",\n",
    "   \"requestBody\": {\"required\": true, \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/RollRequest\"}}}},\n",
    "   \"responses\": {\"200\": {\"description\": \"The rolls and the seed that rolls them again\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Rolls\"}}}},\n",
    "    \"default\": {\"$ref\": \"#/components/responses/Error\"}}}},\n",
    "  \"/dist\": {\"post\": {\"summary\": \"The distribution of an expression\",\n",
    "   \"requestBody\": {\"required\": true, \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/DistRequest\"}}}},\n",
    "   \"responses\": {\"200\": {\"description\": \"The distribution, as alea dist --json prints it\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Dist\"}}}},\n",
    "    \"default\": {\"$ref\": \"#/components/responses/Error\"}}}},\n",
    "  \"/compare\": {\"post\": {\"summary\": \"The distributions of several expressions, within one budget\",\n",
    "   \"requestBody\": {\"required\": true, \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/CompareRequest\"}}}},\n",
    "   \"responses\": {\"200\": {\"description\": \"Each expression's distribution, and the distances of each against the first, as alea compare --json prints them\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Compare\"}}}},\n",
    "    \"default\": {\"$ref\": \"#/components/responses/Error\"}}}},\n",
    "  \"/table\": {\"post\": {\"summary\": \"Statistics of an expression swept over values of its names, within one budget\",\n",
    "   \"requestBody\": {\"required\": true, \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/TableRequest\"}}}},\n",
    "   \"responses\": {\"200\": {\"description\": \"The table, as alea table --json prints it\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Table\"}}}},\n",
    "    \"default\": {\"$ref\": \"#/components/responses/Error\"}}}},\n",
    "  \"/fairness\": {\"post\": {\"summary\": \"Whether a log of rolls is what fair dice give, as alea fairness --json\",\n",
    "   \"requestBody\": {\"required\": true, \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/FairnessRequest\"}}}},\n",
    "   \"responses\": {\"200\": {\"description\": \"The tests run, their p-values and the verdict\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Fairness\"}}}},\n",
    "    \"default\": {\"$ref\": \"#/components/responses/Error\"}}}},\n",
    "  \"/policy\": {\"post\": {\"summary\": \"The player's best choice in every situation of an expression's choice point, as alea policy --json\",\n",
    "   \"requestBody\": {\"required\": true, \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/PolicyRequest\"}}}},\n",
    "   \"responses\": {\"200\": {\"description\": \"The goal, its value with the choices and with the best ones, and a row per situation\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Policy\"}}}},\n",
    "    \"default\": {\"$ref\": \"#/components/responses/Error\"}}}},\n",
    "  \"/health\": {\"get\": {\"summary\": \"Whether the server answers\",\n",
    "   \"responses\": {\"200\": {\"description\": \"It does\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Health\"}}}}}}},\n",
    "  \"/openapi.json\": {\"get\": {\"summary\": \"This document\",\n",
    "   \"responses\": {\"200\": {\"description\": \"The OpenAPI document\", \"content\": {\"application/json\": {\"schema\": {\"type\": \"object\"}}}}}}}},\n",
    " \"components\": {\n",
    "  \"responses\": {\"Error\": {\"description\": \"An error: 400, 403, 404, 405, 408, 413, 415, 422, 429 or 503\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Error\"}}}}},\n",
    "  \"schemas\": {\n",
    "   \"RollRequest\": {\"type\": \"object\", \"required\": [\"expr\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"expr\": {\"type\": \"string\"}, \"n\": {\"type\": \"integer\", \"minimum\": 1},\n",
    "    \"seed\": {\"oneOf\": [{\"type\": \"integer\", \"minimum\": 0}, {\"type\": \"string\", \"pattern\": \"^[0-9]+$\"}]},\n",
    "    \"dialect\": {\"type\": \"string\", \"enum\": [\"alea\", \"roll20\", \"foundry\", \"rpgdr\", \"d20\"]},\n",
    "    \"format\": {\"type\": \"string\", \"enum\": [\"json\", \"text\", \"markdown\"]},\n",
    "    \"luck\": {\"type\": \"boolean\", \"description\": \"each roll's place in the expression's exact distribution, as alea roll --luck\"}}},\n",
    "   \"DistRequest\": {\"type\": \"object\", \"required\": [\"expr\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"expr\": {\"type\": \"string\"}, \"exact\": {\"type\": \"boolean\"},\n",
    "    \"dialect\": {\"type\": \"string\", \"enum\": [\"alea\", \"roll20\", \"foundry\", \"rpgdr\", \"d20\"]}}},\n",
    "   \"CompareRequest\": {\"type\": \"object\", \"required\": [\"exprs\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"exprs\": {\"type\": \"array\", \"minItems\": 1, \"items\": {\"type\": \"string\"}}, \"exact\": {\"type\": \"boolean\"},\n",
    "    \"dialect\": {\"type\": \"string\", \"enum\": [\"alea\", \"roll20\", \"foundry\", \"rpgdr\", \"d20\"]}}},\n",
    "   \"TableRequest\": {\"type\": \"object\", \"required\": [\"sweeps\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"expr\": {\"type\": \"string\"}, \"expression\": {\"type\": \"string\", \"description\": \"the same as expr\"},\n",
    "    \"sweeps\": {\"type\": \"array\", \"minItems\": 1, \"maxItems\": 2, \"items\": {\"type\": \"string\"}, \"description\": \"NAME=A..B, NAME=A..B..STEP or NAME=A,B,C: the rows, then the columns\"},\n",
    "    \"stats\": {\"type\": \"array\", \"maxItems\": 8, \"items\": {\"type\": \"string\"}, \"description\": \"mean (the default), sd, median, p>=N, p<=N, p=N, pN, or a named probability the expression reports\"},\n",
    "    \"exact\": {\"type\": \"boolean\"}, \"dialect\": {\"type\": \"string\", \"enum\": [\"alea\", \"roll20\", \"foundry\", \"rpgdr\", \"d20\"]}}},\n",
    "   \"Table\": {\"type\": \"object\", \"required\": [\"expression\", \"names\", \"values\", \"stats\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"expression\": {\"type\": \"string\"}, \"names\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}},\n",
    "    \"values\": {\"type\": \"array\", \"items\": {\"type\": \"array\", \"items\": {\"type\": \"integer\"}}},\n",
    "    \"stats\": {\"type\": \"array\", \"items\": {\"type\": \"object\", \"required\": [\"stat\", \"cells\"], \"additionalProperties\": false, \"properties\": {\n",
    "     \"stat\": {\"type\": \"string\"}, \"cells\": {\"type\": \"array\", \"description\": \"a row per value of the first name: a cell, or with two names a list of cells (a number, an exact fraction as a string, or an outcome as an integer)\"}}}}}},\n",
    "   \"FairnessRequest\": {\"type\": \"object\", \"additionalProperties\": false, \"description\": \"either rolls or text\", \"properties\": {\n",
    "    \"rolls\": {\"type\": \"array\", \"items\": {\"type\": \"object\", \"required\": [\"expression\", \"total\"], \"additionalProperties\": false, \"properties\": {\n",
    "     \"expression\": {\"type\": \"string\"}, \"total\": {\"type\": \"integer\"}}}},\n",
    "    \"text\": {\"type\": \"string\", \"description\": \"a log as alea fairness reads it: lines EXPR TOTAL, or roll --json lines\"},\n",
    "    \"seed\": {\"oneOf\": [{\"type\": \"integer\", \"minimum\": 0}, {\"type\": \"string\", \"pattern\": \"^[0-9]+$\"}]},\n",
    "    \"dialect\": {\"type\": \"string\", \"enum\": [\"alea\", \"roll20\", \"foundry\", \"rpgdr\", \"d20\"]}}},\n",
    "   \"Fairness\": {\"type\": \"object\", \"required\": [\"rolls\", \"refused\", \"seed\", \"verdict\", \"direction\", \"p\", \"alpha\", \"text\", \"tests\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"rolls\": {\"type\": \"integer\", \"minimum\": 0}, \"refused\": {\"type\": \"integer\", \"minimum\": 0}, \"seed\": {\"type\": \"integer\", \"minimum\": 0},\n",
    "    \"verdict\": {\"type\": \"string\", \"enum\": [\"fair\", \"not fair\", \"too few\"]},\n",
    "    \"direction\": {\"type\": \"string\", \"enum\": [\"low\", \"high\"], \"nullable\": true},\n",
    "    \"p\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": 1}, \"alpha\": {\"type\": \"number\"}, \"text\": {\"type\": \"string\"},\n",
    "    \"tests\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/components/schemas/FairnessTest\"}}}},\n",
    "   \"FairnessTest\": {\"type\": \"object\", \"required\": [\"name\", \"expression\", \"rolls\", \"statistic\", \"p\", \"p_adjusted\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"name\": {\"type\": \"string\", \"enum\": [\"mean\", \"ks\", \"chi-square\"]}, \"expression\": {\"type\": \"string\", \"nullable\": true},\n",
    "    \"rolls\": {\"type\": \"integer\", \"minimum\": 0}, \"statistic\": {\"type\": \"number\"},\n",
    "    \"p\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": 1}, \"p_adjusted\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": 1},\n",
    "    \"direction\": {\"type\": \"string\", \"enum\": [\"low\", \"high\"], \"nullable\": true, \"description\": \"the mean test's\"},\n",
    "    \"df\": {\"type\": \"integer\", \"minimum\": 1}, \"outcomes\": {\"type\": \"integer\", \"minimum\": 1}, \"pooled\": {\"type\": \"string\", \"description\": \"a chi-square's cells pooled, as 3..4, 17..18\"}}},\n",
    "   \"PolicyRequest\": {\"type\": \"object\", \"additionalProperties\": false, \"description\": \"expr or expression\", \"properties\": {\n",
    "    \"expr\": {\"type\": \"string\"}, \"expression\": {\"type\": \"string\", \"description\": \"the same as expr\"},\n",
    "    \"exact\": {\"type\": \"boolean\"}, \"dialect\": {\"type\": \"string\", \"enum\": [\"alea\", \"roll20\", \"foundry\", \"rpgdr\", \"d20\"]}}},\n",
    "   \"Policy\": {\"type\": \"object\", \"required\": [\"expression\", \"goal\", \"probability\", \"value\", \"optimum\", \"rows\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"expression\": {\"type\": \"string\"}, \"goal\": {\"type\": \"string\", \"description\": \"the goal as a person reads it: the mean, the chance of >= 20\"},\n",
    "    \"probability\": {\"type\": \"boolean\", \"description\": \"whether the values are chances\"},\n",
    "    \"value\": {\"$ref\": \"#/components/schemas/PolicyValue\"}, \"optimum\": {\"$ref\": \"#/components/schemas/PolicyValue\"},\n",
    "    \"rows\": {\"type\": \"array\", \"items\": {\"type\": \"object\", \"required\": [\"seen\", \"choice\", \"chance\", \"value\", \"plain\"], \"additionalProperties\": false, \"properties\": {\n",
    "     \"seen\": {\"type\": \"string\"}, \"choice\": {\"type\": \"string\"}, \"chance\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": 1, \"description\": \"how often the player sees it\"},\n",
    "     \"value\": {\"$ref\": \"#/components/schemas/PolicyValue\"}, \"plain\": {\"type\": \"number\", \"description\": \"the goal's value without choosing\"}}}}}},\n",
    "   \"PolicyValue\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\", \"pattern\": \"^-?[0-9]+(/[0-9]+)?$\", \"description\": \"an exact fraction, with exact\"}]},\n",
    "   \"Rolls\": {\"type\": \"object\", \"required\": [\"rolls\", \"seed\"], \"properties\": {\n",
    "    \"rolls\": {\"type\": \"array\", \"items\": {\"oneOf\": [{\"$ref\": \"#/components/schemas/Roll\"}, {\"$ref\": \"#/components/schemas/RollText\"}]}},\n",
    "    \"seed\": {\"type\": \"integer\", \"minimum\": 0},\n",
    "    \"hint\": {\"type\": \"string\", \"description\": \"when another tool reads the expression otherwise\"},\n",
    "    \"luck_refused\": {\"type\": \"string\", \"description\": \"with luck: why the distribution was refused (a limit); the rolls come without their luck\"}}},\n",
    "   \"Roll\": {\"type\": \"object\", \"required\": [\"expression\", \"total\", \"text\", \"dice\"], \"properties\": {\n",
    "    \"expression\": {\"type\": \"string\"}, \"total\": {\"type\": \"integer\"}, \"text\": {\"type\": \"string\"},\n",
    "    \"comment\": {\"type\": \"string\"}, \"dice\": {\"type\": \"array\", \"items\": {\"type\": \"object\"}},\n",
    "    \"luck\": {\"description\": \"with luck: P(total <= this) and P(total >= this); for a repeat a list, one per roll\", \"oneOf\": [{\"$ref\": \"#/components/schemas/Luck\"}, {\"type\": \"array\", \"items\": {\"$ref\": \"#/components/schemas/Luck\"}}]},\n",
    "    \"groups\": {\"type\": \"array\", \"description\": \"each group rolled: {A, B}, if(COND, THEN, ELSE) (members: the condition and the branch taken), sum(N, EXPR) (members: the N rolls)\", \"items\": {\"$ref\": \"#/components/schemas/Group\"}},\n",
    "    \"bound\": {\"type\": \"array\", \"description\": \"each name a let gave, rolled once; only when the expression has names\", \"items\": {\"$ref\": \"#/components/schemas/Bound\"}}}},\n",
    "   \"Group\": {\"type\": \"object\", \"required\": [\"start\", \"end\", \"value\", \"members\"], \"properties\": {\n",
    "    \"start\": {\"type\": \"integer\", \"minimum\": 0}, \"end\": {\"type\": \"integer\", \"minimum\": 0}, \"value\": {\"type\": \"integer\"},\n",
    "    \"branch\": {\"type\": \"string\", \"enum\": [\"then\", \"else\"], \"description\": \"an if's: the branch taken\"},\n",
    "    \"count\": {\"type\": \"integer\", \"minimum\": 0, \"description\": \"a sum's N\"},\n",
    "    \"members\": {\"type\": \"array\", \"items\": {\"type\": \"object\", \"required\": [\"start\", \"end\", \"value\"], \"properties\": {\n",
    "     \"start\": {\"type\": \"integer\", \"minimum\": 0}, \"end\": {\"type\": \"integer\", \"minimum\": 0}, \"value\": {\"type\": \"integer\"},\n",
    "     \"dropped\": {\"type\": \"boolean\"}, \"success\": {\"type\": \"boolean\"}, \"failure\": {\"type\": \"boolean\"}}}}}},\n",
    "   \"Luck\": {\"type\": \"object\", \"required\": [\"at_most\", \"at_least\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"at_most\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": 1}, \"at_least\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": 1}}},\n",
    "   \"Bound\": {\"type\": \"object\", \"required\": [\"name\", \"term\", \"value\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"name\": {\"type\": \"string\"}, \"term\": {\"type\": \"string\", \"description\": \"the expression the name stands for, as written\"}, \"value\": {\"type\": \"integer\"}}},\n",
    "   \"RollText\": {\"type\": \"object\", \"required\": [\"expression\", \"total\", \"text\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"expression\": {\"type\": \"string\"}, \"total\": {\"type\": \"integer\"}, \"text\": {\"type\": \"string\"}}},\n",
    "   \"Dist\": {\"type\": \"object\", \"required\": [\"expression\", \"outcomes\", \"mean\", \"sd\", \"min\", \"max\", \"truncated\"], \"properties\": {\n",
    "    \"expression\": {\"type\": \"string\"}, \"hint\": {\"type\": \"string\"},\n",
    "    \"outcomes\": {\"type\": \"array\", \"items\": {\"type\": \"array\", \"minItems\": 2, \"maxItems\": 2, \"items\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]}}},\n",
    "    \"mean\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]}, \"sd\": {\"type\": \"number\"},\n",
    "    \"min\": {\"type\": \"integer\"}, \"max\": {\"type\": \"integer\"},\n",
    "    \"truncated\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]}}},\n",
    "   \"Compare\": {\"type\": \"object\", \"required\": [\"columns\", \"versus\"], \"properties\": {\n",
    "    \"columns\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/components/schemas/Dist\"}},\n",
    "    \"versus\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/components/schemas/Versus\"}}}},\n",
    "   \"Versus\": {\"type\": \"object\", \"required\": [\"a\", \"b\", \"p_greater\", \"p_equal\", \"p_less\", \"tv\", \"ks\", \"emd\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"a\": {\"type\": \"integer\", \"minimum\": 0}, \"b\": {\"type\": \"integer\", \"minimum\": 1},\n",
    "    \"p_greater\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]}, \"p_equal\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]},\n",
    "    \"p_less\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]}, \"tv\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]},\n",
    "    \"ks\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]}, \"emd\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]}}},\n",
    "   \"Health\": {\"type\": \"object\", \"required\": [\"status\", \"version\"], \"properties\": {\n",
    "    \"status\": {\"type\": \"string\", \"enum\": [\"ok\"]}, \"version\": {\"type\": \"string\"}}},\n",
    "   \"Error\": {\"type\": \"object\", \"required\": [\"error\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"error\": {\"type\": \"object\", \"required\": [\"message\", \"start\", \"end\", \"status\", \"caret\", \"hint\"], \"additionalProperties\": false, \"properties\": {\n",
    "     \"message\": {\"type\": \"string\"}, \"start\": {\"type\": \"integer\", \"minimum\": 0}, \"end\": {\"type\": \"integer\", \"minimum\": 0},\n",
    "     \"status\": {\"type\": \"string\", \"pattern\": \"^(ALEA_ERR|SERVE)_[A-Z_]+$\"},\n",
    "     \"caret\": {\"type\": \"string\", \"nullable\": true}, \"hint\": {\"type\": \"string\", \"nullable\": true}}}}}}}}\n",
};

void answer_openapi(const options *o, const request_fields *f, const timer *deadline,
                           reply *out)
{
    (void)o;
    (void)f;
    (void)deadline;
    buffer b = {NULL, 0};
    size_t at = 0;
    for (size_t i = 0; i < sizeof openapi_lines / sizeof openapi_lines[0]; i++) {
        size_t n = strlen(openapi_lines[i]);
        if (!buffer_reserve(&b, at + n + 1)) {
            free(b.p);
            out->status = MHD_HTTP_SERVICE_UNAVAILABLE;
            out->p = NULL;
            return;
        }
        memcpy(b.p + at, openapi_lines[i], n);
        at += n;
    }
    json_t *doc = json_loadb(b.p, at, 0, NULL);
    free(b.p);
    json_object_set_new(json_object_get(doc, "info"), "version", json_string(alea_version()));
    out->status = MHD_HTTP_OK;
    out->p = doc ? json_dumps(doc, JSON_INDENT(1)) : NULL;
    out->len = out->p ? strlen(out->p) : 0;
    json_decref(doc);
}

#endif
