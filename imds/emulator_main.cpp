// imds-emulator entry point (work in progress).
int main() {
  return 0;
}
