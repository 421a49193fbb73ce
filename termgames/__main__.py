from termgames.cli import main

main()
