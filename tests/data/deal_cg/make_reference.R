# deal's (Boettcher & Dethlefsen) network scores of a few DAGs on mixed.csv under a prior built
# by hand to match pymc_bnstruct's CG(ess, am, aw); writes reference.csv. Run with
#   Rscript make_reference.R            (R 4.2, Debian's r-cran-deal 1.2-42)
# deal's own prior (jointprior) spreads an imaginary sample over all discrete cells and takes
# its mean and scale from the data; here every node's local prior is set instead:
#  - discrete node, r states, q parent configurations: Dirichlet alpha = ess / (r q) per cell
#    (BDeu);
#  - continuous node with l continuous parents, in every configuration of its discrete
#    parents: (intercept, beta) | s2 ~ N(0, s2 tau^-1), tau = diag(am, t, ..., t),
#    s2 ~ IG(rho / 2, phi / 2) with rho = aw - n + l + 1, phi = t, t = am (aw - n - 1) / (am + 1)
#    (n continuous variables): the regression form of the BGe local prior with mu0 = 0.
suppressMessages(library(deal))
ess <- 2; am <- 1.5
df <- read.csv("mixed.csv", stringsAsFactors = TRUE)
nc <- sum(sapply(df, is.numeric)); aw <- nc + am + 3
t0 <- am * (aw - nc - 1) / (am + 1)
dags <- list(
  empty = list(),
  chain = list(x = "a", y = c("x", "b"), z = c("y", "c")),
  truth = list(b = "a", x = "a", y = c("x", "b"), z = c("y", "c")),
  dense = list(b = c("a", "c"), x = c("a", "b"), y = c("a", "x", "b"), z = c("x", "y", "c")),
  reversed = list(b = "a", y = c("a", "b"), x = c("y", "a"), z = c("y", "x"))
)
nw0 <- network(df)
prior <- suppressMessages(jointprior(nw0, 30))  # only shapes the condprior lists; every value is replaced below
out <- data.frame(dag = character(), score = numeric())
for (name in names(dags)) {
  nw <- nw0
  for (child in names(dags[[name]])) {
    i <- match(child, names(df))
    nw$nodes[[i]]$parents <- sort(match(dags[[name]][[child]], names(df)))
  }
  total <- 0
  for (i in seq_len(nw$n)) {
    node <- deal:::cond.node(nw$nodes[[i]], nw, prior)
    if (node$type == "discrete") {
      node$condprior[[1]]$alpha[] <- ess / length(node$condprior[[1]]$alpha)
    } else {
      l <- length(intersect(node$parents, nw$continuous))
      for (j in seq_along(node$condprior)) {
        node$condprior[[j]]$mu <- rep(0, l + 1)
        node$condprior[[j]]$tau <- if (l == 0) am else diag(c(am, rep(t0, l)))
        node$condprior[[j]]$rho <- aw - nc + l + 1
        node$condprior[[j]]$phi <- t0
      }
    }
    node$condposterior <- node$condprior
    node$loglik <- 0
    node <- deal:::learnnode(node, nw, df)
    total <- total + node$loglik
  }
  out[nrow(out) + 1, ] <- list(name, total)
  edges <- unlist(lapply(names(dags[[name]]), function(ch) paste0(dags[[name]][[ch]], "->", ch)))
  cat(name, ":", paste(edges, collapse = " "), "=", format(total, digits = 15), "\n")
}
write.csv(data.frame(out, ess = ess, am = am, aw = aw), "reference.csv", row.names = FALSE)
