# BiDAG 2.1.4 (Kuipers, Suter & Moffa 2022) as a benchmark peer: its defaults, timed.
#
#   Rscript run_bidag.R DATA.csv discrete|continuous order|partition OUT.json [SEED]
#
# Discrete data: BDeu with ESS 1 and no edge penalty (scoreparameters("bdecat", chi = 1,
# edgepf = 1)), columns coded 0..k-1. Continuous data: BGe with BiDAG's defaults (am = 1,
# aw = n + am + 1, no edge penalty), the package's BGe to 1e-14. iterativeMCMC learns the
# search space, then orderMCMC (or partitionMCMC) samples on its end space; edgep() with
# BiDAG's default burn-in of 20 % gives the edge probabilities. Writes JSON: the column
# names, the seconds of the space and of the whole run, and the edge-probability matrix
# (row = parent). SEED, when given, seeds R's generator (set.seed): without it every run
# differs (iterativeMCMC and the sampler are random).
args <- commandArgs(trailingOnly = TRUE)
if (!length(args) %in% c(4, 5)) {
  stop("usage: Rscript run_bidag.R DATA.csv discrete|continuous order|partition OUT.json [SEED]")
}
suppressPackageStartupMessages({
  library(BiDAG)
  library(jsonlite)
})
df <- read.csv(args[1], check.names = FALSE, stringsAsFactors = TRUE)
kind <- args[2]
sampler <- args[3]
if (length(args) == 5) set.seed(as.integer(args[5]))
if (kind == "discrete") {
  codes <- as.data.frame(lapply(df, function(col) as.integer(as.factor(col)) - 1L))
  score <- scoreparameters("bdecat", codes, bdecatpar = list(chi = 1, edgepf = 1))
} else {
  score <- scoreparameters("bge", df)
}
t0 <- proc.time()[["elapsed"]]
space <- iterativeMCMC(score, verbose = FALSE)
t1 <- proc.time()[["elapsed"]]
fit <- if (sampler == "order") {
  orderMCMC(score, startspace = space$endspace, MAP = FALSE, chainout = TRUE, verbose = FALSE)
} else {
  partitionMCMC(score, startspace = space$endspace, verbose = FALSE)
}
t2 <- proc.time()[["elapsed"]]
edges <- as.matrix(edgep(fit, pdag = FALSE, burnin = 0.2))
write_json(list(names = colnames(df), seconds_space = t1 - t0, seconds = t2 - t0, edge = unname(edges)),
           args[4], digits = NA, auto_unbox = TRUE)
