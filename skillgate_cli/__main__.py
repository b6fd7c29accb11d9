from skillgate_cli.main import main

raise SystemExit(main())
