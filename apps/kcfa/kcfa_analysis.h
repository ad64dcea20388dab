/* kcfa_analysis.h: k-CFA as relational rules on the relalg engine.
 *
 * The five rules of issue 3 have bodies of up to six atoms; the engine joins
 * two relations on their key columns.  So, as a Datalog compiler would, the
 * analysis breaks them into binary joins through intermediate relations,
 * each stored with the columns the next join needs as its key:
 *
 *   Rule 2 (a call):  ReachesCfg(a,τ) ⋈ App(a,f,a0,a1)      -> F(f,τ | a,a0,a1)
 *                     F ⋈ AEval(f,τ,l,τf)                    -> H(l | a,τ,a0,a1,τf)
 *                     H ⋈ Lam(l,x,y,body)                    -> I(a0,τ | a,a1,l,τf,x,y,body)
 *                     I ⋈ AEval(a0,τ,l0,τ0')                 -> J(a1,τ | ...,l0,τ0')
 *                     J ⋈ AEval(a1,τ,l1,τ1')                 -> Call(a | τ,l,τf,x,y,body,l0,τ0',l1,τ1')
 *                     Call -> Store, Store, Step, ReachesCfg, ReachesClo, Time
 *                     (τ2 = push(a, τ) is a choice of columns: a, τ1..τ(k-1))
 *   Rule 3:           TimeC(0 | τ) ⋈ LamC(0 | l)             -> AEval(l,τ,l,τ)
 *   Rule 4:           Store(x | τ,l,τ') ⋈ VarByX(x | r)      -> AEval(r,τ,l,τ')
 *   Rule 5:           Step -> S1(lc | τ,τc);  S1 ⋈ NonParam(lc | r) -> S2(r,τc | τ)
 *                     S2 ⋈ AEval(r,τc,l,τ')                  -> AEval(r,τ,l,τ')
 *   NonParam(lc, r):  the lambdas lc and references r whose variable is
 *                     neither parameter of lc: LamP(0 | lc,p0,p1) ⋈ VarC(0 | r,x)
 *                     with x ≠ p0, x ≠ p1, in a first stratum of its own.
 *
 * Rules 3 and NonParam are cross products; a constant first column gives
 * them a join key.  Where both sides of a join grow, semi-naive evaluation
 * needs both delta ⋈ full and full ⋈ delta; where one side is an input, its
 * full version suffices.  Column orders of the six output relations are the
 * issue's: Time(τ), ReachesCfg(s,τ), AEval(s,τ,l,τ'), Store(x,τ,l,τ'),
 * Step(a,τ,body,τ2,l,τf), ReachesClo(l,τ'), each τ being k columns. */
#ifndef RAVEL_KCFA_ANALYSIS_H
#define RAVEL_KCFA_ANALYSIS_H

#include "kcfa_facts.h"

#include <ravel/relalg.h>

/* The relations a user asks about, in the order of the issue. */
enum {
    KCFA_TIME,
    KCFA_REACHES_CFG,
    KCFA_AEVAL,
    KCFA_STORE,
    KCFA_STEP,
    KCFA_REACHES_CLO,
    KCFA_OUTPUTS
};

typedef struct {
    unsigned k;
    ravel_rel out[KCFA_OUTPUTS]; /* by the enum above */
} kcfa_analysis;

/* The names of the output relations, by the enum above. */
extern const char *const kcfa_output_names[KCFA_OUTPUTS];

/* The most k the engine's arity limit allows (Call has 4k + 7 columns). */
#define KCFA_MAX_K ((RAVEL_MAX_ARITY - 7) / 4)

/* Declares every relation and rule of the analysis on `e` and inserts this
 * rank's share of the input facts (row i goes in from rank i mod P; every
 * rank holds the whole program).  k is 1..KCFA_MAX_K.  Then ravel_run(e)
 * computes the analysis. */
int kcfa_analysis_declare(ravel_engine *e, unsigned k,
                          const ravel_kcfa_facts *facts, int rank, int nranks,
                          kcfa_analysis *out);

#endif
