// Preloaded under the sanitizers only (tests/sanitizers/run.sh): dlclose does nothing, so that a
// library that OpenMPI (its MCA components, at MPI_Finalize) or a test unloads stays mapped until
// exit. LeakSanitizer symbolises its report at exit; an unloaded library's frames would read
// "<unknown module>", which no suppression in lsan.supp can name. Nothing else changes: the
// library's destructors did not run at dlclose and still do not. Built without the sanitizers,
// so that the unsanitised processes a test starts (mpirun, python3) load it too.
extern "C" int dlclose(void* handle) noexcept {
  (void)handle;
  return 0;
}
