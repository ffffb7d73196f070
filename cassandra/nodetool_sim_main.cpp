// nodetool-sim entry point (work in progress).
int main() { return 0; }
